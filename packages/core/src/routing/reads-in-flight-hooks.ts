/**
 * Counts the cacheable reads under way in the API's scope (GETs without credentials), when shared caches are purged:
 * a write's second purge of them waits for the reads that were under way at its commit (`reads-in-flight.ts`). A read
 * during which a purge happened leaves with `Cache-Control: private, no-store`: no shared cache keeps what may show
 * the state before that write.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ReadsInFlight } from '../http-cache/reads-in-flight.js';

export function registerReadsInFlightHooks(app: FastifyInstance, reads: ReadsInFlight): void {
  const under = new WeakMap<FastifyRequest, { readonly key: number; readonly generation: number }>();
  const finish = (request: FastifyRequest): void => {
    const read = under.get(request);
    if (read === undefined) return;
    under.delete(request);
    reads.finished(read.key);
  };
  app.addHook('onRequest', (request, _reply, done) => {
    if (request.method === 'GET' && request.headers.authorization === undefined)
      under.set(request, { key: reads.started(), generation: reads.generation });
    done();
  });
  // As late as the response's headers can change (after the coalesced writes' wait): purged since it started, it may
  // show the older state, so no shared cache may keep it.
  app.addHook('onSend', (request, reply, payload, done) => {
    const read = under.get(request);
    if (read !== undefined && read.generation !== reads.generation && reply.hasHeader('cache-control'))
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
