/**
 * The in-process cache's hooks in the API's scope (`httpCache: { store: 'memory' }`). Each GET route's last own
 * `onRequest` hook answers a GET without credentials from a fresh response kept for its URL, host and `Accept` (and
 * the headers it declared it varies on), before any stage runs: `X-Cache: HIT` and `Age`, or 304 when `If-None-Match`
 * names its ETag. It runs after every other `onRequest` hook — the production plugin's request id, security headers
 * and rate limit among them — so that a hit is counted by the rate limit like any request, and can be refused by it.
 * With hits answered before the app (`answerHits: 'beforeApp'`, the default), the server answers them before Fastify
 * sees them (`front-cache-hits.ts`), and this hook answers only what does not reach the server's listener
 * (`app.inject`) or what it leaves to the app (HTTP/2, a closing server).
 * `onSend` keeps the 200s shared caches may keep (those with cache tags and `public` with a lifetime: `s-maxage`, else
 * `max-age`, and no `Set-Cookie`), unless a write purged something since the request started (`memory-store.ts`):
 * `X-Cache: MISS`.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import { buildCacheKey, isSameVariant, readVaryValues } from '../http-cache/cache-key.js';
import type { HttpCacheSettings } from '../http-cache/http-cache-options.js';
import type { CachedResponse, MemoryStore } from '../http-cache/memory-store.js';
import type { PurgeClock } from '../http-cache/purge-clock.js';
import { ifNoneMatchMatches } from '../pipeline/entity-tag.js';
import { addRouteHook } from '../route-hooks.js';
import { registerPurgeClockProperty, markPurgesAtStart, readPurgesAtStart } from './purge-clock-request.js';

/**
 * On a request the store did not answer, the headers its own `onRequest` hooks had set (its request id, its rate
 * limit's counts, security headers): not kept with the response, unless the response changed them, since a hit's own
 * hooks set them again. Null on the others (a hit is not stored again). A request property, as the clock's count.
 */
const OWN_HEADERS = 'resourceApiCacheMissHeaders';

type WithOwnHeaders = { [OWN_HEADERS]: Readonly<Record<string, unknown>> | null };

/** Headers not kept: the API scope adds `Link` per origin, Fastify the length, this hook `X-Cache` and `Age`. */
const UNKEPT = new Set(['link', 'content-length', 'x-cache', 'age', 'date', 'connection', 'keep-alive']);

/**
 * What a hit answered before the app does not replay of the headers the request's own hooks set: its rate-limit
 * counts (and `Retry-After`, when a count was over); its request id is left out by value.
 */
const PER_REQUEST = /^(x-ratelimit-|retry-after$)/;

const keyOf = (request: FastifyRequest): string => buildCacheKey(request.headers, request.url);

/** Whether a request may be answered from, or stored in, the shared in-process cache. */
const cacheable = (request: FastifyRequest): boolean =>
  request.method === 'GET' && request.headers.authorization === undefined;

/** The lifetime, in seconds, of a shared response: `s-maxage`, else `max-age`; 0 when it has none or is not public. */
function lifetimeOf(cacheControl: string): number {
  if (!/(^|,)\s*public\s*(,|$)/.test(cacheControl) || /no-store|no-cache/.test(cacheControl)) return 0;
  const shared = /s-maxage=(\d+)/.exec(cacheControl) ?? /(?:^|[,\s])max-age=(\d+)/.exec(cacheControl);
  return shared ? Number(shared[1]) : 0;
}

/** The request headers a response declared it varies on beyond `Accept` and `Authorization`. */
const variedNames = (vary: string): string[] =>
  vary
    .split(',')
    .map((part) => part.trim().toLowerCase())
    .filter((name) => name !== '' && name !== 'accept' && name !== 'authorization');

/** Whether a request's `If-None-Match` names the ETag of the response kept for it: a hit answers 304. */
export function isNotModifiedHit(headers: IncomingHttpHeaders, entry: CachedResponse): boolean {
  const ifNoneMatch = headers['if-none-match'];
  const etag = entry.headers.etag;
  return ifNoneMatch !== undefined && etag !== undefined && ifNoneMatchMatches(ifNoneMatch, [etag]);
}

/** A header value as the cache keeps it: several values joined by `, `. */
const headerText = (value: string | number | readonly string[]): string =>
  Array.isArray(value) ? value.join(', ') : String(value);

export function registerMemoryCacheHooks(
  app: FastifyInstance,
  options: { readonly store: MemoryStore; readonly clock: PurgeClock; readonly settings: HttpCacheSettings },
): void {
  const { store, clock, settings } = options;
  registerPurgeClockProperty(app);
  app.decorateRequest(OWN_HEADERS, null);
  // A callback hook, not an async one: no promise per request; a hit is answered here and the chain goes no further.
  const lookUp: onRequestHookHandler = (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    if (!cacheable(request)) return done();
    const now = Date.now();
    const entry = store.find(keyOf(request), now);
    if (!entry || !isSameVariant(request.headers, entry.varies)) {
      markPurgesAtStart(request, clock);
      (request as unknown as WithOwnHeaders)[OWN_HEADERS] = { ...reply.getHeaders() };
      return done();
    }
    const age = String(Math.floor((now - entry.storedAt) / 1000));
    if (isNotModifiedHit(request.headers, entry)) {
      const { 'content-type': _type, [settings.tagHeader]: _tags, ...kept } = entry.headers;
      reply.code(304).headers(kept).header('age', age).header('x-cache', 'HIT').send();
      return;
    }
    reply.code(entry.status).headers(entry.headers).header('age', age).header('x-cache', 'HIT').send(entry.body);
  };
  // After the route's other onRequest hooks: the rate limit adds its own to each route from an onRoute hook of the
  // same scope, registered before this one (or of the application's, whose onRoute hooks run first).
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (methods.includes('GET')) addRouteHook(route, 'onRequest', lookUp);
  });

  app.addHook('onSend', (request, reply, payload, done) => {
    const own = (request as unknown as WithOwnHeaders)[OWN_HEADERS];
    const since = readPurgesAtStart(request);
    if (own == null || since === undefined || reply.statusCode !== 200 || typeof payload !== 'string')
      return done(null, payload);
    const tags = reply.getHeader(settings.tagHeader);
    const lifetime = lifetimeOf(String(reply.getHeader('cache-control') ?? ''));
    // A response that sets a cookie is one client's: no shared cache keeps it.
    if (tags === undefined || lifetime === 0 || reply.hasHeader('set-cookie')) return done(null, payload);
    const all = reply.getHeaders();
    const headers: Record<string, string> = {};
    for (const name in all) {
      const value = all[name];
      if (value !== undefined && !UNKEPT.has(name) && value !== own[name]) headers[name] = headerText(value);
    }
    const body = Buffer.from(payload);
    const now = Date.now();
    store.add(
      keyOf(request),
      {
        status: 200,
        headers,
        body,
        ...(settings.answerHits === 'beforeApp' ? { frontHead: buildFrontHead(request, all, body) } : {}),
        tags: String(tags)
          .split(settings.tagSeparator.trim() || ' ')
          .map((tag) => tag.trim())
          .filter(Boolean),
        varies: readVaryValues(request.headers, variedNames(String(reply.getHeader('vary') ?? ''))),
        storedAt: now,
        expiresAt: now + lifetime * 1000,
      },
      since,
    );
    reply.header('x-cache', 'MISS');
    done(null, payload);
  });
}

/**
 * The headers a hit answered before the app sends, but `Age` (`CachedResponse.frontHead`): the response's as they are
 * now, `Link` included, but for its request id, its rate-limit counts and what the server adds itself.
 */
function buildFrontHead(
  request: FastifyRequest,
  headers: Readonly<Record<string, string | number | readonly string[] | undefined>>,
  body: Buffer,
): string[] {
  const head: string[] = [];
  for (const name in headers) {
    const value = headers[name];
    if (value === undefined || value === request.id || PER_REQUEST.test(name)) continue;
    if (name === 'link' || !UNKEPT.has(name)) head.push(name, headerText(value));
  }
  head.push('x-cache', 'HIT', 'content-length', String(body.length));
  return head;
}
