/**
 * Reading related items by id (to check IRIs on input, to embed them on output), whoever stores them: the built-in
 * knex state in batches, or a resource's own state provider, asked item by item through its item operation.
 */
import { findBuiltinOperation } from '../metadata/builtin-operation.js';
import type { Entity, ItemId, MetadataRegistry, OperationMetadata, ResourceMetadata } from '../metadata/types.js';
import { readsOnItsOwn, SILENT_LOGGER } from './compose.js';
import type { Database } from './database.js';
import type { UniquenessCheck } from '../validation/validate.js';
import type { KnexState } from './knex/knex-state.js';

export interface ItemReader {
  readItem(resource: ResourceMetadata, id: ItemId): Promise<Entity | null>;
  readMany(resource: ResourceMetadata, ids: readonly ItemId[], toMany: readonly string[]): Promise<Entity[]>;
  existingIds(resource: ResourceMetadata, ids: readonly ItemId[]): Promise<Set<ItemId>>;
  /** Unique checks; items of a custom provider are left to it (always unique here). */
  isUnique: UniquenessCheck;
}

/** What a provider reading an item for embedding (a relation's target) is told of the request: nothing of it. */
const EMBEDDED_REQUEST = Object.freeze({ method: 'GET', path: '', headers: Object.freeze({}), ip: '', id: '' });
const NOBODY = Object.freeze({ user: null, roles: Object.freeze([]) as readonly string[] });

/** A resource whose items come from its own provider. */
export const hasOwnProvider = (resource: ResourceMetadata): boolean => readsOnItsOwn(resource);

export function createItemReader(registry: MetadataRegistry, state: KnexState, database: Database): ItemReader {
  const itemOperation = new Map<string, OperationMetadata>();
  for (const resource of registry.resources) {
    const operation = findBuiltinOperation(resource, 'get') ?? resource.operations[0];
    if (operation) itemOperation.set(resource.name, operation);
  }

  async function viaProvider(resource: ResourceMetadata, id: ItemId): Promise<Entity | null> {
    const operation = itemOperation.get(resource.name);
    if (!operation) return null;
    const provider = (operation.kind === 'get' ? operation.provider : undefined) ?? resource.provider!;
    const found = await provider.provide(
      {
        operation,
        resource,
        id,
        page: null,
        filters: [],
        parents: [],
        db: database.knex,
        caller: NOBODY,
        request: EMBEDDED_REQUEST,
        logger: SILENT_LOGGER,
        uriVariables: { id: String(id) },
        execute: state.execute,
        toRow: state.toRow,
      },
      () =>
        Promise.reject(
          new Error(
            `The provider of ${resource.name} called next(), which it cannot do for an item read for embedding.`,
          ),
        ),
    );
    return found && !('items' in found) ? (found as Entity) : null;
  }

  async function readMany(
    resource: ResourceMetadata,
    ids: readonly ItemId[],
    toMany: readonly string[],
  ): Promise<Entity[]> {
    if (!hasOwnProvider(resource)) return state.readMany(resource, ids, toMany);
    const found = await Promise.all([...new Set(ids)].map((id) => viaProvider(resource, id)));
    return found.filter((item): item is Entity => item !== null);
  }

  return {
    readItem: (resource, id) => (hasOwnProvider(resource) ? viaProvider(resource, id) : state.readItem(resource, id)),
    readMany,
    isUnique: (resource, values, exceptId) =>
      hasOwnProvider(resource) ? Promise.resolve(true) : state.isUnique(resource, values, exceptId),
    async existingIds(resource, ids) {
      if (!hasOwnProvider(resource)) return state.existingIds(resource, ids);
      return new Set((await readMany(resource, ids, [])).map((item) => item.id!));
    },
  };
}
