/**
 * The plugin's `httpCache` option, checked once at start: the default cache headers of operations that declare none,
 * the name of the cache-tag header and its size limit, and the in-process cache (`store: 'memory'`). Without the
 * option, and without any `cacheHeaders` declared, responses carry no caching headers at all (as before).
 */
import type { Redis } from 'ioredis';
import type { CacheHeadersDeclaration } from '../declare/types.js';
import { DeclarationError } from '../errors.js';
import type { CacheHeadersMetadata } from '../metadata/types.js';
import { checkCacheHeaders } from './cache-headers.js';
import { formatDidYouMean } from '../metadata/did-you-mean.js';
import type { CacheTagPurger } from './tag-purger.js';

/** `httpCache` of the plugin's options. See docs/http-cache.md. */
export interface HttpCacheOptions {
  /**
   * The cache headers of the reads of every operation that declares no `cacheHeaders` (its resource neither), e.g.
   * `{ sharedMaxAge: 3600, maxAge: 0 }`. They apply only where sharing is safe: anonymous callers, no access rule.
   * Default: `{}` (`Cache-Control: public` without lifetimes on public reads, so caches revalidate).
   */
  readonly defaults?: CacheHeadersDeclaration;
  /**
   * The response header listing the cache tags: `Cache-Tags` (default, comma-separated, Souin and most CDNs), `xkey`
   * (space-separated, Varnish's xkey module), or another name (comma-separated).
   */
  readonly tagHeader?: string;
  /**
   * The largest tag header, in bytes (default 4096): a response that would list more falls back to the collection
   * tags of the resources it shows, which every write of them purges too, so invalidation is never lost.
   */
  readonly maxTagBytes?: number;
  /** `'memory'`: the built-in in-process cache of whole responses, purged by tag after each write. Default: none. */
  readonly store?: 'memory';
  /**
   * The in-process cache's memory bound, in bytes of bodies and headers (default 64 MiB); least recently used go first.
   */
  readonly maxBytes?: number;
  /**
   * Where the in-process cache answers a hit. `'beforeApp'` (default): as a reverse proxy in front of the app would,
   * when the request arrives on the server, before Fastify routes it — no hook of the app runs for it (no rate-limit
   * count, no request log line, no request id of its own), and it replays the stored response's headers (security
   * headers and CORS included). `'afterHooks'`: after every other `onRequest` hook of the route, so that each hit is
   * logged, counted by the rate limit and given the request's own headers. See docs/http-cache.md.
   */
  readonly answerHits?: 'beforeApp' | 'afterHooks';
  /**
   * The shared caches in front of the app, purged by tag after each write, before it is answered: Varnish
   * (`createVarnishPurger`), or any `{ purge(tags) }` (Souin, a CDN). Default: none.
   */
  readonly purgers?: readonly CacheTagPurger[];
  /**
   * How the instances of the app purge each other's in-process caches (and, with `purgers`, wait for each other's
   * reads): on PostgreSQL through `LISTEN/NOTIFY` by default; through Redis with a `redis://` URL or an ioredis client
   * of yours (used to publish, duplicated to subscribe, left open). Needs the `ioredis` package.
   */
  readonly redis?: Redis | string;
  /** The Redis or PostgreSQL channel of the purges (default: `resource_api_cache:<schema>`). */
  readonly channel?: string;
  /**
   * `false`: this is the app's only instance, so no purge is sent to others (on PostgreSQL: no listening connection).
   * Default: true where there can be others (PostgreSQL, or `redis`).
   */
  readonly fanOut?: boolean;
  /** Milliseconds a write waits for another instance to acknowledge its purge (default 2,000). */
  readonly purgeTimeout?: number;
  /**
   * Milliseconds after the cacheable reads under way at a write's commit have been answered before the shared caches
   * (`purgers`) are purged a second time (default 25): the time a shared cache may take to store what it received.
   */
  readonly repurgeDelay?: number;
}

/** `httpCache`, checked and with its defaults. */
export interface HttpCacheSettings {
  /** The plugin's `defaults`; null without the option (only operations declaring `cacheHeaders` then get headers). */
  readonly defaults: CacheHeadersMetadata | null;
  /** Lower case, as Fastify's headers. */
  readonly tagHeader: string;
  /** `' '` for xkey, `', '` for the others. */
  readonly tagSeparator: string;
  readonly maxTagBytes: number;
  /** The in-process cache's bound in bytes, or null when it is off. */
  readonly memoryBytes: number | null;
  /** Where the in-process cache answers its hits (`answerHits`). */
  readonly answerHits: 'beforeApp' | 'afterHooks';
  readonly purgers: readonly CacheTagPurger[];
  readonly redis: Redis | string | undefined;
  readonly channel: string | undefined;
  readonly fanOut: boolean;
  readonly purgeTimeout: number;
  readonly repurgeDelay: number;
}

const KEYS = [
  'defaults',
  'tagHeader',
  'maxTagBytes',
  'store',
  'maxBytes',
  'answerHits',
  'purgers',
  'redis',
  'channel',
  'fanOut',
  'purgeTimeout',
  'repurgeDelay',
];
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * The settings of `option`; null when the plugin has no `httpCache` option and no operation declares `cacheHeaders`
 * (`declared`). Throws `DeclarationError`.
 */
export function resolveHttpCache(option: HttpCacheOptions | undefined, declared: boolean): HttpCacheSettings | null {
  if (option === undefined && !declared) return null;
  const given = option !== undefined;
  option ??= {};
  if (typeof option !== 'object' || option === null || Array.isArray(option))
    throw new DeclarationError(`"httpCache" must be { ${KEYS.join(', ')} }.`);
  for (const key of Object.keys(option))
    if (!KEYS.includes(key))
      throw new DeclarationError(`"httpCache" has an unknown option "${key}".${formatDidYouMean(key, KEYS)}`);
  const { tagHeader = 'Cache-Tags', maxTagBytes = 4096, store, maxBytes = 64 * 1024 * 1024 } = option;
  if (typeof tagHeader !== 'string' || !TOKEN.test(tagHeader))
    throw new DeclarationError('"httpCache.tagHeader" must be a header name, such as "Cache-Tags" or "xkey".');
  // Below a few hundred bytes even a response of one item would fall back: a typo, not a choice.
  if (!Number.isSafeInteger(maxTagBytes) || maxTagBytes < 64)
    throw new DeclarationError('"httpCache.maxTagBytes" must be a whole number of bytes, 64 or more.');
  if (store !== undefined && store !== 'memory')
    throw new DeclarationError(
      `"httpCache.store" must be "memory" (the in-process cache), not ${JSON.stringify(store)}.`,
    );
  if (!Number.isSafeInteger(maxBytes) || maxBytes < 1)
    throw new DeclarationError('"httpCache.maxBytes" must be a whole number of bytes.');
  const { answerHits = 'beforeApp' } = option;
  if (answerHits !== 'beforeApp' && answerHits !== 'afterHooks')
    throw new DeclarationError(
      `"httpCache.answerHits" must be "beforeApp" or "afterHooks", not ${JSON.stringify(answerHits)}.`,
    );
  const { purgers = [], redis, channel, fanOut = true, purgeTimeout = 2_000, repurgeDelay = 25 } = option;
  if (!Array.isArray(purgers) || purgers.some((purger) => typeof purger?.purge !== 'function'))
    throw new DeclarationError(
      '"httpCache.purgers" must be a list of purgers, each with a purge(tags) method (createVarnishPurger makes one).',
    );
  const isClient =
    typeof redis === 'object' &&
    redis !== null &&
    typeof redis.publish === 'function' &&
    typeof redis.duplicate === 'function';
  if (redis !== undefined && !isClient && (typeof redis !== 'string' || !/^rediss?:\/\/./.test(redis)))
    throw new DeclarationError('"httpCache.redis" must be a redis:// (or rediss://) URL or an ioredis client.');
  if (redis !== undefined && fanOut === false)
    throw new DeclarationError(
      '"httpCache.redis" carries the purges between instances, which "httpCache.fanOut: false" turns off: give one or the other.',
    );
  if (channel !== undefined && (typeof channel !== 'string' || channel === '' || Buffer.byteLength(channel) > 63))
    throw new DeclarationError('"httpCache.channel" must be a channel name of 1 to 63 bytes.');
  if (typeof fanOut !== 'boolean') throw new DeclarationError('"httpCache.fanOut" must be true or false.');
  for (const [key, value] of [
    ['purgeTimeout', purgeTimeout],
    ['repurgeDelay', repurgeDelay],
  ] as const)
    if (!Number.isSafeInteger(value) || value < 0 || (key === 'purgeTimeout' && value === 0))
      throw new DeclarationError(`"httpCache.${key}" must be a whole number of milliseconds.`);
  const name = tagHeader.toLowerCase();
  return {
    defaults: given ? (checkCacheHeaders(option.defaults ?? {}, '"httpCache.defaults"') ?? null) : null,
    tagHeader: name,
    tagSeparator: name === 'xkey' ? ' ' : ', ',
    maxTagBytes,
    memoryBytes: store === 'memory' ? maxBytes : null,
    answerHits,
    purgers,
    redis,
    channel,
    fanOut,
    purgeTimeout,
    repurgeDelay,
  };
}
