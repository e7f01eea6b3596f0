/**
 * The `cacheHeaders` option of resources and operations: checked, and resolved into `CacheHeadersMetadata`, the
 * operation's keys over its resource's (as API Platform merges `cacheHeaders`). `false` at either level means
 * `private, no-store`; an operation's own object replaces a resource's `false`. The plugin's `httpCache.defaults`
 * are checked by the same function (`checkCacheHeaders`) and apply at request time under an undeclared operation.
 */
import type { CacheHeadersDeclaration } from '../declare/types.js';
import { DeclarationError } from '../errors.js';
import type { CacheHeadersMetadata } from '../metadata/types.js';
import { formatDidYouMean } from '../metadata/did-you-mean.js';

const SECONDS = ['maxAge', 'sharedMaxAge', 'staleWhileRevalidate', 'staleIfError'] as const;
const KEYS = ['public', ...SECONDS, 'vary'];
// A header name (RFC 9110 token): a Vary member that is not one would make the header unparseable.
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** `cacheHeaders` as declared at one level: false, undefined (not said), or the directives. */
export type CacheHeadersOption = false | CacheHeadersDeclaration | undefined;

/** One level's `cacheHeaders`, checked (`where` names it in the errors); undefined when the level does not say. */
export function checkCacheHeaders(option: unknown, where: string): CacheHeadersMetadata | undefined {
  if (option === undefined) return undefined;
  if (option === false) return { ...EMPTY, noStore: true };
  if (typeof option !== 'object' || option === null || Array.isArray(option))
    throw new DeclarationError(
      `${where}: "cacheHeaders" must be false or { public, maxAge, sharedMaxAge, staleWhileRevalidate, staleIfError, vary }.`,
    );
  const declared = option as Record<string, unknown>;
  for (const key of Object.keys(declared))
    if (!KEYS.includes(key))
      throw new DeclarationError(
        `${where}: "cacheHeaders" has an unknown option "${key}".${formatDidYouMean(key, KEYS)}`,
      );
  if (declared.public !== undefined && typeof declared.public !== 'boolean')
    throw new DeclarationError(`${where}: "cacheHeaders.public" must be true or false.`);
  for (const key of SECONDS) {
    const value = declared[key];
    if (value !== undefined && (!Number.isSafeInteger(value) || (value as number) < 0))
      throw new DeclarationError(`${where}: "cacheHeaders.${key}" must be a whole number of seconds (0 or more).`);
  }
  const { vary = [] } = declared;
  if (!Array.isArray(vary) || vary.some((name) => typeof name !== 'string' || !TOKEN.test(name)))
    throw new DeclarationError(`${where}: "cacheHeaders.vary" must be a list of request header names.`);
  return {
    noStore: false,
    public: declared.public as boolean | undefined,
    maxAge: declared.maxAge as number | undefined,
    sharedMaxAge: declared.sharedMaxAge as number | undefined,
    staleWhileRevalidate: declared.staleWhileRevalidate as number | undefined,
    staleIfError: declared.staleIfError as number | undefined,
    vary: [...(vary as string[])],
  };
}

const EMPTY: CacheHeadersMetadata = {
  noStore: false,
  public: undefined,
  maxAge: undefined,
  sharedMaxAge: undefined,
  staleWhileRevalidate: undefined,
  staleIfError: undefined,
  vary: [],
};

/** `over`'s keys where it says them, else `under`'s: the cascade defaults → resource → operation. */
export function mergeCacheHeaders(
  under: CacheHeadersMetadata | null | undefined,
  over: CacheHeadersMetadata | null | undefined,
): CacheHeadersMetadata | null {
  if (!over) return under ?? null;
  if (!under || over.noStore || under.noStore) return over;
  return {
    noStore: false,
    public: over.public ?? under.public,
    maxAge: over.maxAge ?? under.maxAge,
    sharedMaxAge: over.sharedMaxAge ?? under.sharedMaxAge,
    staleWhileRevalidate: over.staleWhileRevalidate ?? under.staleWhileRevalidate,
    staleIfError: over.staleIfError ?? under.staleIfError,
    vary: [...new Set([...under.vary, ...over.vary])],
  };
}

/** An operation's `cacheHeaders`: its own keys over its resource's; null when neither level declares any. */
export function buildOperationCacheHeaders(
  levels: { readonly resource: CacheHeadersOption; readonly operation: CacheHeadersOption },
  where: string,
): CacheHeadersMetadata | null {
  return mergeCacheHeaders(checkCacheHeaders(levels.resource, where), checkCacheHeaders(levels.operation, where));
}
