/**
 * What `Cache-Control` and `Vary` a response gets, and whether shared caches may keep it. The safe defaults: only a
 * GET (item or collection) answered to a request without credentials, of an operation without an access rule and
 * rendering the resource's own items, may be shared (a soft-deleted resource's `?deleted=true` listing, which its
 * `list` rule guards, neither); anything else is `private, no-store` — unless the resource or
 * the operation declares `public: true` (it says the response is the same for every caller). `Vary` always holds
 * `Accept` (JSON-LD or JSON) and `Authorization` (a cache must never hand one caller's response to another).
 */
import type { CacheHeadersMetadata, OperationMetadata } from '../metadata/types.js';
import { mergeCacheHeaders } from '../http-cache/cache-headers.js';
import type { HttpCacheSettings } from '../http-cache/http-cache-options.js';

export interface CachePolicy {
  readonly cacheControl: string;
  readonly vary: string;
  /** Shared caches may keep it: it gets cache tags, and the in-process cache may store it. */
  readonly shared: boolean;
}

const NO_STORE = 'private, no-store';

/** What of the request decides whether its response may be shared. */
export interface CachedRequest {
  /** The `Authorization` header, if any. */
  readonly authorization: string | undefined;
  /** A rule beyond the operation's decided this request (a soft-deleted resource's `list`, for `?deleted=true`). */
  readonly ruled: boolean;
}

/**
 * The policy of `operation`'s response to `request`; null when caching headers are off for it (no `httpCache` option
 * and nothing declared).
 */
export function resolveCachePolicy(
  settings: HttpCacheSettings | null,
  operation: OperationMetadata,
  request: CachedRequest,
): CachePolicy | null {
  if (!settings || (settings.defaults === null && operation.cacheHeaders === null)) return null;
  // Four policies per operation at most (with or without credentials, ruled or not), each worked out once.
  let byOperation = policies.get(settings);
  if (!byOperation) policies.set(settings, (byOperation = new WeakMap()));
  let known = byOperation.get(operation);
  if (!known) byOperation.set(operation, (known = []));
  const index = (request.authorization === undefined ? 0 : 1) + (request.ruled ? 2 : 0);
  return (known[index] ??= workOutPolicy(settings, operation, request));
}

const policies = new WeakMap<HttpCacheSettings, WeakMap<OperationMetadata, CachePolicy[]>>();

function workOutPolicy(settings: HttpCacheSettings, operation: OperationMetadata, request: CachedRequest): CachePolicy {
  const headers = mergeCacheHeaders(settings.defaults, operation.cacheHeaders)!;
  const vary = ['Accept', 'Authorization', ...headers.vary].join(', ');
  const reads = operation.kind === 'get' || operation.kind === 'getCollection';
  if (!reads || operation.method !== 'GET' || headers.noStore) return { cacheControl: NO_STORE, vary, shared: false };
  // An output shape shows values no tag names: only a declaration may share it.
  const safe =
    request.authorization === undefined && !request.ruled && operation.security === null && operation.output === null;
  const declaredPublic = operation.cacheHeaders?.public === true;
  const shared = headers.public !== false && (safe || declaredPublic);
  if (!shared && (headers.public !== false || headers.maxAge === undefined))
    return { cacheControl: NO_STORE, vary, shared: false };
  return { cacheControl: toCacheControl(headers, shared), vary, shared };
}

/** The directives, in API Platform's order. */
function toCacheControl(headers: CacheHeadersMetadata, shared: boolean): string {
  const directives = [shared ? 'public' : 'private'];
  // The shared lifetime first, as the bookshop contract (and API Platform's docs) write it: `public, s-maxage=…,
  // max-age=…`.
  if (shared && headers.sharedMaxAge !== undefined) directives.push(`s-maxage=${headers.sharedMaxAge}`);
  if (headers.maxAge !== undefined) directives.push(`max-age=${headers.maxAge}`);
  if (headers.staleWhileRevalidate !== undefined)
    directives.push(`stale-while-revalidate=${headers.staleWhileRevalidate}`);
  if (headers.staleIfError !== undefined) directives.push(`stale-if-error=${headers.staleIfError}`);
  return directives.join(', ');
}
