/**
 * Hits of the in-process cache answered before the app (`httpCache: { store: 'memory' }`, `answerHits: 'beforeApp'`,
 * the default): the server's request listener looks the request up first, as a reverse proxy in front of the app
 * would, and hands Fastify only what it does not answer. A hit costs a lookup and a write: no routing, no request or
 * reply object, no hook, no log line, no rate-limit count. It replays the stored response's headers
 * (`CachedResponse.frontHead`: security headers, CORS and `Link` as they were sent, but no request id or rate-limit
 * counts) with `X-Cache: HIT` and `Age`, or answers 304 when `If-None-Match` names its ETag. With shared caches in
 * front (`purgers`), each hit counts as a read just answered (`reads-in-flight.ts`): a shared cache may store it a
 * moment after a write's first purge, so that write purges them a second time.
 *
 * Only plain cases: an HTTP/1 GET without `Authorization`, while the server is not closing (then Fastify answers, with
 * `Connection: close` or 503). What reaches the app without passing the listener (`app.inject`) is answered by the
 * route's own hook (`memory-cache-hooks.ts`), from the same entries. The listener is wrapped once the app is ready,
 * when the server's only request listener is Fastify's (a `serverFactory` that calls it otherwise keeps the route's
 * hook alone).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { buildCacheKey, isSameVariant } from '../http-cache/cache-key.js';
import type { HttpCacheSettings } from '../http-cache/http-cache-options.js';
import type { CachedResponse, MemoryStore } from '../http-cache/memory-store.js';
import type { ReadsInFlight } from '../http-cache/reads-in-flight.js';
import { isNotModifiedHit } from './memory-cache-hooks.js';

type RequestListener = (request: IncomingMessage, response: ServerResponse) => void;

export function registerFrontCacheHits(
  app: FastifyInstance,
  options: {
    readonly store: MemoryStore;
    readonly settings: HttpCacheSettings;
    /** With shared caches in front: a hit counts as a read just answered, which a write's second purge waits for. */
    readonly reads: ReadsInFlight | null;
  },
): void {
  const { store, settings, reads } = options;
  let closing = false;
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  app.addHook('onReady', (done) => {
    const server = app.server as unknown as {
      listeners(event: 'request'): RequestListener[];
      removeListener(event: 'request', listener: RequestListener): void;
      on(event: 'request', listener: RequestListener): void;
    };
    const listeners = server.listeners('request');
    const [fastify] = listeners;
    if (listeners.length !== 1 || fastify === undefined) return done();
    server.removeListener('request', fastify);
    server.on('request', (request, response) => {
      if (!answer(request, response)) fastify(request, response);
    });
    done();
  });

  /** Answers `request` from the store when it can; false when the app must. */
  function answer(request: IncomingMessage, response: ServerResponse): boolean {
    if (
      closing ||
      request.method !== 'GET' ||
      request.httpVersionMajor !== 1 ||
      request.headers.authorization !== undefined
    )
      return false;
    const now = Date.now();
    const entry = store.find(buildCacheKey(request.headers, request.url), now);
    const head = entry?.frontHead;
    if (!entry || !head || !isSameVariant(request.headers, entry.varies)) return false;
    const age = String(Math.floor((now - entry.storedAt) / 1000));
    // A shared cache in front (Varnish) may store this answer a moment after it leaves, after a write's first purge.
    reads?.answered();
    if (isNotModifiedHit(request.headers, entry)) {
      response.writeHead(304, [...withoutBodyHeaders(head, settings.tagHeader), 'age', age]);
      response.end();
      return true;
    }
    response.writeHead(entry.status, [...head, 'age', age]);
    response.end(entry.body);
    return true;
  }
}

/** A 304's headers: the hit's, without those that describe the body it does not send. */
function withoutBodyHeaders(head: CachedResponse['frontHead'] & {}, tagHeader: string): string[] {
  const kept: string[] = [];
  for (let i = 0; i < head.length; i += 2) {
    const name = head[i]!;
    if (name !== 'content-type' && name !== 'content-length' && name !== tagHeader) kept.push(name, head[i + 1]!);
  }
  return kept;
}
