/**
 * A shared cache in front of the app (Varnish, Souin, a CDN) that the framework purges by cache tag after each write
 * (`httpCache.purgers`). `createVarnishPurger` is one; anything with a `purge` method is another.
 */

/** What `httpCache.purgers` takes. */
export interface CacheTagPurger {
  /** Named in the logs when a purge fails: `varnish http://127.0.0.1:6081`. */
  readonly name?: string;
  /**
   * Removes every response the cache keeps that lists one of `tags` in its cache-tag header. The write is answered
   * once it resolves (never stale); a rejection is logged, and the write, committed, is answered all the same.
   * Called twice for a write that overlapped cacheable reads: right after the commit, and once those reads have been
   * answered (docs/http-cache.md, "Shared caches").
   */
  purge(tags: readonly string[]): Promise<void>;
}
