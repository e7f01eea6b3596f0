/**
 * Counts the cacheable reads under way in the API's scope (GETs without credentials), when shared caches are purged:
 * a write's second purge of them waits for the reads that were under way at its commit (`reads-in-flight.ts`). A read
 * during which a purge happened leaves with `Cache-Control: private, no-store`: no shared cache keeps what may show
 * the state before that write.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { PurgeClock } from '../http-cache/purge-clock.js';
import type { ReadsInFlight } from '../http-cache/reads-in-flight.js';
import { registerPurgeClockProperty, markPurgesAtStart, readPurgesAtStart } from './purge-clock-request.js';

/** The request's key among the reads under way; a property, like the clock's count (`purge-clock-request.ts`). */
const READ_KEY = 'resourceApiReadKey';

type WithReadKey = { [READ_KEY]: number | null };

export function registerReadsInFlightHooks(
  app: FastifyInstance,
  options: { readonly reads: ReadsInFlight; readonly clock: PurgeClock },
): void {
  const { reads, clock } = options;
  registerPurgeClockProperty(app);
  app.decorateRequest(READ_KEY, null);
  const finish = (request: FastifyRequest): void => {
    const read = request as unknown as WithReadKey;
    if (read[READ_KEY] == null) return;
    reads.finished(read[READ_KEY]);
    read[READ_KEY] = null;
  };
  app.addHook('onRequest', (request, _reply, done) => {
    if (request.method === 'GET' && request.headers.authorization === undefined) {
      (request as unknown as WithReadKey)[READ_KEY] = reads.started();
      markPurgesAtStart(request, clock);
    }
    done();
  });
  // As late as the response's headers can change (after the coalesced writes' wait): purged since it started, it may
  // show the older state, so no shared cache may keep it.
  app.addHook('onSend', (request, reply, payload, done) => {
    const since = readPurgesAtStart(request);
    if (since !== undefined && since !== clock.now && reply.hasHeader('cache-control'))
      reply.header('cache-control', 'private, no-store');
    done(null, payload);
  });
  // Answered (its last byte handed to the socket), or abandoned by its client.
  app.addHook('onResponse', (request, _reply, done) => {
    finish(request);
    done();
  });
  app.addHook('onRequestAbort', (request, done) => {
    finish(request);
    done();
  });
}
