/**
 * The in-process cache's hooks in the API's scope (`httpCache: { store: 'memory' }`). `onRequest` answers a GET
 * without credentials from a fresh response kept for its URL, host and `Accept` (and the headers it declared it
 * varies on), before any stage runs: `X-Cache: HIT` and `Age`, or 304 when `If-None-Match` names its ETag. `onSend`
 * keeps the 200s shared caches may keep (those with cache tags and `public` with a lifetime: `s-maxage`, else
 * `max-age`), unless a write purged something since the request started (`memory-store.ts`): `X-Cache: MISS`.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { MemoryStore } from '../http-cache/memory-store.js';
import type { HttpCacheSettings } from '../http-cache/http-cache-options.js';
import { ifNoneMatchMatches } from '../pipeline/entity-tag.js';

/**
 * The store's generation when each request the store did not answer started: a response is kept only if nothing was
 * purged since. A request answered from the store has none, so it is not stored again.
 */
const started = new WeakMap<FastifyRequest, number>();

/** Headers not kept: the API scope adds `Link` per origin, Fastify the length, this hook `X-Cache` and `Age`. */
const UNKEPT = new Set(['link', 'content-length', 'x-cache', 'age', 'date', 'connection', 'keep-alive']);

const keyOf = (request: FastifyRequest): string =>
  `${request.hostname}\n${request.url}\n${request.headers.accept ?? ''}`;

/** Whether a request may be answered from, or stored in, the shared in-process cache. */
const cacheable = (request: FastifyRequest): boolean =>
  request.method === 'GET' && request.headers.authorization === undefined;

/** The lifetime, in seconds, of a shared response: `s-maxage`, else `max-age`; 0 when it has none or is not public. */
function lifetimeOf(cacheControl: string): number {
  if (!/(^|,)\s*public\s*(,|$)/.test(cacheControl) || /no-store|no-cache/.test(cacheControl)) return 0;
  const shared = /s-maxage=(\d+)/.exec(cacheControl) ?? /(?:^|[,\s])max-age=(\d+)/.exec(cacheControl);
  return shared ? Number(shared[1]) : 0;
}

/** The values of the request headers a response declared it varies on beyond `Accept` and `Authorization`. */
function variesOf(request: FastifyRequest, vary: string): Record<string, string | undefined> {
  const varies: Record<string, string | undefined> = {};
  for (const name of vary.split(',').map((part) => part.trim().toLowerCase()))
    if (name !== '' && name !== 'accept' && name !== 'authorization') varies[name] = headerOf(request, name);
  return varies;
}

/** Whether the request has the values of the headers a kept response varies on (beyond the key) that it had then. */
function variesMatch(request: FastifyRequest, varies: Readonly<Record<string, string | undefined>>): boolean {
  for (const name in varies) if (headerOf(request, name) !== varies[name]) return false;
  return true;
}

const headerOf = (request: FastifyRequest, name: string): string | undefined => {
  const value = request.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
};

/**
 * Sets the kept headers on a reply, except those the request's own earlier `onRequest` hooks already set: they belong
 * to this request (its `X-Request-Id`, its rate limit's `X-RateLimit-Remaining`), not to the one that was stored.
 */
function keepOwn(reply: FastifyReply, headers: Readonly<Record<string, string>>): FastifyReply {
  for (const name in headers) if (!reply.hasHeader(name)) reply.header(name, headers[name]);
  return reply;
}

export function registerMemoryCacheHooks(
  app: FastifyInstance,
  options: { readonly store: MemoryStore; readonly settings: HttpCacheSettings },
): void {
  const { store, settings } = options;
  // A callback hook, not an async one: no promise per request; a hit is answered here and the chain goes no further.
  app.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    if (!cacheable(request)) return done();
    const generation = store.generation;
    const now = Date.now();
    const entry = store.find(keyOf(request), now);
    if (!entry || !variesMatch(request, entry.varies)) {
      started.set(request, generation);
      return done();
    }
    const age = String(Math.floor((now - entry.storedAt) / 1000));
    const ifNoneMatch = request.headers['if-none-match'];
    const etag = entry.headers.etag;
    if (ifNoneMatch !== undefined && etag !== undefined && ifNoneMatchMatches(ifNoneMatch, [etag])) {
      const { 'content-type': _type, [settings.tagHeader]: _tags, ...kept } = entry.headers;
      keepOwn(reply.code(304), kept).header('age', age).header('x-cache', 'HIT').send();
      return;
    }
    keepOwn(reply.code(entry.status), entry.headers).header('age', age).header('x-cache', 'HIT').send(entry.body);
  });

  app.addHook('onSend', (request, reply, payload, done) => {
    const since = started.get(request);
    if (since === undefined || reply.statusCode !== 200 || typeof payload !== 'string') return done(null, payload);
    const tags = reply.getHeader(settings.tagHeader);
    const lifetime = lifetimeOf(String(reply.getHeader('cache-control') ?? ''));
    if (tags === undefined || lifetime === 0) return done(null, payload);
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(reply.getHeaders()))
      if (value !== undefined && !UNKEPT.has(name))
        headers[name] = Array.isArray(value) ? value.join(', ') : String(value);
    const now = Date.now();
    store.add(
      keyOf(request),
      {
        status: 200,
        headers,
        body: payload,
        tags: String(tags)
          .split(settings.tagSeparator.trim() || ' ')
          .map((tag) => tag.trim())
          .filter(Boolean),
        varies: variesOf(request, String(reply.getHeader('vary') ?? '')),
        storedAt: now,
        expiresAt: now + lifetime * 1000,
      },
      since,
    );
    reply.header('x-cache', 'MISS');
    done(null, payload);
  });
}
