/**
 * The plugin's `httpCache` option, checked once at start: the default cache headers of operations that declare none,
 * the name of the cache-tag header and its size limit, and the in-process cache (`store: 'memory'`). Without the
 * option, and without any `cacheHeaders` declared, responses carry no caching headers at all (as before).
 */
import type { CacheHeadersDeclaration } from '../declare/types.js';
import { DeclarationError } from '../errors.js';
import type { CacheHeadersMetadata } from '../metadata/types.js';
import { checkCacheHeaders } from '../build/passes/build-cache-headers.js';
import { formatDidYouMean } from '../metadata/did-you-mean.js';

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
  /** The in-process cache's memory bound, in bytes of bodies and headers (default 64 MiB); least recently used go first. */
  readonly maxBytes?: number;
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
}

const KEYS = ['defaults', 'tagHeader', 'maxTagBytes', 'store', 'maxBytes'];
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
    throw new DeclarationError('"httpCache" must be { defaults, tagHeader, maxTagBytes, store, maxBytes }.');
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
  const name = tagHeader.toLowerCase();
  return {
    defaults: given ? (checkCacheHeaders(option.defaults ?? {}, '"httpCache.defaults"') ?? null) : null,
    tagHeader: name,
    tagSeparator: name === 'xkey' ? ' ' : ', ',
    maxTagBytes,
    memoryBytes: store === 'memory' ? maxBytes : null,
  };
}
