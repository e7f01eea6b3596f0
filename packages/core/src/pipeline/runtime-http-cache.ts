/**
 * HTTP caching at run time, made once at start from the plugin's `httpCache` option: its settings, the in-process
 * cache (`store: 'memory'`), the shared caches in front (`purgers`), the other instances (`instance-purges.ts`), and
 * the purger the write stage awaits after each commit. Null when the plugin has no `httpCache` option and no
 * operation declares `cacheHeaders`: responses then carry no caching headers.
 *
 * A write's purge, in order: this instance's cache at once; then, together, the other instances (each purges its
 * cache and, with shared caches, waits for its reads under way), the shared caches, and this instance's reads under
 * way; the shared caches once more if any of those reads was there (a response rendered before the write may have
 * reached them after their first purge).
 */
import type { MetadataRegistry } from '../metadata/types.js';
import { type HttpCacheOptions, resolveHttpCache } from '../http-cache/http-cache-options.js';
import { createInstancePurges, type InstancePurges } from '../http-cache/instance-purges.js';
import { createMemoryStore } from '../http-cache/memory-store.js';
import { createPurgeClock } from '../http-cache/purge-clock.js';
import { toPostgresPurgeChannel, toPurgeChannel, toRedisPurgeChannel } from '../http-cache/purge-channels.js';
import { createReadsInFlight } from '../http-cache/reads-in-flight.js';
import type { CacheTagPurger } from '../http-cache/tag-purger.js';
import type { Database } from '../state/database.js';
import type { RuntimeHttpCache } from './operation-context.js';
import { createCachePurger, type PurgeLog } from './purge-written.js';

export interface RuntimeHttpCacheOptions {
  readonly registry: MetadataRegistry;
  readonly database: Database;
  readonly schema: string | undefined;
  readonly log: PurgeLog;
}

export async function createRuntimeHttpCache(
  option: HttpCacheOptions | undefined,
  context: RuntimeHttpCacheOptions,
): Promise<RuntimeHttpCache | null> {
  const { registry } = context;
  const declared = registry.resources.some((resource) =>
    resource.operations.some((operation) => operation.cacheHeaders !== null),
  );
  const settings = resolveHttpCache(option, declared);
  if (!settings) return null;
  const clock = createPurgeClock();
  const store = settings.memoryBytes === null ? null : createMemoryStore(settings.memoryBytes, clock);
  const shared = settings.purgers;
  // Nothing keeps responses: no purge, no cascade to look for inside the writes, no other instance to tell.
  if (!store && shared.length === 0)
    return { settings, store, clock, purger: null, reads: null, close: async () => {} };
  const reads =
    shared.length > 0 ? createReadsInFlight({ delay: settings.repurgeDelay, timeout: settings.purgeTimeout }) : null;
  const channel = !settings.fanOut
    ? null
    : settings.redis !== undefined
      ? toRedisPurgeChannel(settings.redis, settings.channel ?? toPurgeChannel(context.schema), context.log)
      : context.database.dialect.name === 'postgres'
        ? toPostgresPurgeChannel(context.database, settings.channel ?? toPurgeChannel(context.schema), context.log)
        : null;
  const instances: InstancePurges | null =
    channel &&
    (await createInstancePurges({
      open: channel,
      store,
      clock,
      reads,
      timeout: settings.purgeTimeout,
      log: context.log,
    }));

  const purgeShared = (tags: readonly string[], log: PurgeLog): Promise<unknown> =>
    Promise.all(
      shared.map((purger: CacheTagPurger) =>
        purger
          .purge(tags)
          .catch((error: unknown) =>
            log.error(
              { err: error, purger: purger.name },
              'httpCache: a shared cache could not be purged after a committed write; it may show the older state until its responses expire',
            ),
          ),
      ),
    );

  const purger = createCachePurger({
    registry,
    async purgeTags(tagSet, log) {
      clock.advance();
      store?.purge(tagSet);
      if (!instances && shared.length === 0) return;
      const tags = [...tagSet];
      const [othersHadReads, , hadReads] = await Promise.all([
        instances?.purge(tags, shared.length > 0).catch((error: unknown) => {
          log.error(
            { err: error },
            'httpCache: the purge could not be sent to the other instances; their caches may show the older state',
          );
          return false;
        }) ?? false,
        purgeShared(tags, log),
        reads?.settled() ?? false,
      ]);
      if (shared.length > 0 && (othersHadReads || hadReads)) await purgeShared(tags, log);
    },
  });
  return { settings, store, clock, purger, reads, close: async () => instances?.close() };
}
