/**
 * Counts the cacheable reads under way in the API's scope (GETs without credentials), when shared caches are purged:
 * a write's second purge of them waits for the reads that were under way at its commit (`reads-in-flight.ts`).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ReadsInFlight } from '../http-cache/reads-in-flight.js';

export function registerReadsInFlightHooks(app: FastifyInstance, reads: ReadsInFlight): void {
  const keys = new WeakMap<FastifyRequest, number>();
  const finish = (request: FastifyRequest): void => {
    const key = keys.get(request);
    if (key === undefined) return;
    keys.delete(request);
    reads.finished(key);
  };
  app.addHook('onRequest', (request, _reply, done) => {
    if (request.method === 'GET' && request.headers.authorization === undefined) keys.set(request, reads.started());
    done();
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
