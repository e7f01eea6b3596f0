/**
 * HTTP caching at run time, made once at start from the plugin's `httpCache` option: its settings, the in-process
 * cache (`store: 'memory'`), and the purger the write stage calls after each commit. Null when the plugin has no
 * `httpCache` option and no operation declares `cacheHeaders`: responses then carry no caching headers.
 */
import type { MetadataRegistry } from '../metadata/types.js';
import { type HttpCacheOptions, resolveHttpCache } from '../http-cache/http-cache-options.js';
import { createMemoryStore } from '../http-cache/memory-store.js';
import type { RuntimeHttpCache } from './operation-context.js';
import { createCachePurger } from './purge-written.js';

export function createRuntimeHttpCache(
  option: HttpCacheOptions | undefined,
  registry: MetadataRegistry,
): RuntimeHttpCache | null {
  const declared = registry.resources.some((resource) =>
    resource.operations.some((operation) => operation.cacheHeaders !== null),
  );
  const settings = resolveHttpCache(option, declared);
  if (!settings) return null;
  const store = settings.memoryBytes === null ? null : createMemoryStore(settings.memoryBytes);
  // Without a store nothing here keeps responses: no purge, and no cascade to look for inside the writes.
  const purger =
    store &&
    createCachePurger({
      registry,
      // A shared cache in front (Varnish, a CDN) would be purged here too: not built yet.
      purgeTags: (tags) => store.purge(tags),
    });
  return { settings, store, purger };
}
