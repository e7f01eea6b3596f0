/**
 * Cache invalidation after commit: the write stage hands each committed write here, before its response is sent, and
 * the tags of every item it wrote are purged — the item, the items nested in it (`cascadePersist`), and those a
 * DELETE took or changed through the database's cascades (the write stage looked them up in its transaction, before
 * it) — each with its resource's collection path, so lists that showed or may now show it are purged too.
 * The write is answered once every cache has purged, so a read that starts after the write's response can never be
 * answered from a response rendered before the write.
 */
import {
  type Entity,
  type MetadataRegistry,
  NestedWrite,
  type OperationMetadata,
  type ResourceMetadata,
} from '../metadata/types.js';
import type { CascadedItem } from '../state/knex/cascaded-items.js';
import { listWrittenTags } from './cache-tags.js';

/** One committed write, as the purger needs it. */
export interface PurgedWrite {
  readonly resource: ResourceMetadata;
  readonly operation: OperationMetadata;
  /** The new state the processors were given (with its `NestedWrite`s). */
  readonly data: Entity;
  /** What the processors returned (null after a DELETE). */
  readonly stored: Entity | null;
  readonly previous: Entity | null;
  /** The items a DELETE took or changed by cascade (the write stage looked them up in its transaction). */
  readonly cascaded: readonly CascadedItem[];
}

/** Where a purge's failures are told (the request's logger). */
export interface PurgeLog {
  error(object: unknown, message?: string): void;
  warn(object: unknown, message?: string): void;
}

export interface CachePurger {
  /** Purges the tags of every item `write` wrote; resolves once every cache has (failures are logged, not thrown). */
  purge(write: PurgedWrite, log: PurgeLog): Promise<void>;
}

export interface CachePurgerOptions {
  readonly registry: MetadataRegistry;
  /** Removes the responses listing one of the tags, everywhere they are kept (`runtime-http-cache.ts`). */
  readonly purgeTags: (tags: ReadonlySet<string>, log: PurgeLog) => Promise<void>;
}

export function createCachePurger(options: CachePurgerOptions): CachePurger {
  const { registry } = options;
  /** The tags of the items nested in `data`, at every depth: updated ones by id, created ones by their collection. */
  function addNested(resource: ResourceMetadata, data: Entity, stored: Entity | null, tags: Set<string>): void {
    for (const field of resource.fields) {
      const value = data[field.name];
      for (const nested of Array.isArray(value) ? value : [value]) {
        if (!(nested instanceof NestedWrite)) continue;
        const target = registry.resource(nested.resource);
        tags.add(target.collectionPath);
        const id = nested.id ?? (Array.isArray(value) ? undefined : stored?.[field.name]);
        if (id !== undefined && id !== null) for (const tag of listWrittenTags(target, id)) tags.add(tag);
        addNested(target, nested.data, null, tags);
      }
    }
  }

  return {
    purge(write, log) {
      const { resource } = write;
      // The collection always: even a write whose item is unknown here (an output shape) may change a list.
      const tags = new Set([resource.collectionPath]);
      // An output shape's values are no item: the item written is the one the operation read, if any.
      const id = write.operation.output ? write.previous?.id : (write.stored?.id ?? write.previous?.id);
      if (id !== undefined && id !== null) for (const tag of listWrittenTags(resource, id)) tags.add(tag);
      addNested(resource, write.data, write.stored, tags);
      for (const item of write.cascaded) for (const tag of listWrittenTags(item.resource, item.id)) tags.add(tag);
      return options.purgeTags(tags, log);
    },
  };
}
