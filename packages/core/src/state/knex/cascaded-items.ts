/**
 * The items a DELETE writes through the database's own cascades, found inside its transaction before the delete
 * runs: the rows whose to-one declares `onDelete: 'cascade'` go with it (and, in turn, theirs), those declaring
 * `'set null'` lose the link, and the items whose many-to-many lists named a deleted item (its join rows go) change.
 * Real-time updates publish them as the framework's own writes are (issue 38: "including items written by cascade").
 * Soft-deleted rows the cascade takes are followed (their own cascades run) but not reported: nobody saw them.
 */
import type { Knex } from 'knex';
import { readItemId } from '../../metadata/identifier.js';
import type { ItemId, MetadataRegistry, ResourceMetadata } from '../../metadata/types.js';
import { listChunks } from './chunks.js';

export interface CascadedItem {
  readonly resource: ResourceMetadata;
  readonly id: ItemId;
  /** Deleted with it; otherwise changed (a link set to null, a many-to-many list shortened). */
  readonly deleted: boolean;
}

/**
 * The resources whose items' deletion the database's cascades reach beyond the item: some stored resource's to-one
 * to them is `onDelete: 'cascade'` or `'set null'`, or a many-to-many joins them (either side).
 */
export function listCascadeTargets(registry: MetadataRegistry): ReadonlySet<string> {
  return new Set(
    registry.resources.flatMap((owner) =>
      owner.stored
        ? owner.fields.flatMap((field) =>
            (field.kind === 'toOne' && field.onDelete !== 'restrict') || (field.kind === 'toMany' && field.joinTable)
              ? [field.target]
              : [],
          )
        : [],
    ),
  );
}

/** The live ids of `resource`'s rows where `column` is one of `values`, and the soft-deleted ones apart. */
async function selectLinked(
  trx: Knex.Transaction,
  table: string,
  column: string,
  values: readonly ItemId[],
  selected: string,
  softDeleteColumn: string | undefined,
): Promise<{ id: unknown; gone: boolean }[]> {
  const found: { id: unknown; gone: boolean }[] = [];
  for (const part of listChunks(values)) {
    const query = trx(table).distinct(`${selected} as id`).whereIn(column, part);
    if (softDeleteColumn) query.select(trx.raw('?? is not null as gone', [softDeleteColumn]));
    const rows = (await query) as { id: unknown; gone?: unknown }[];
    for (const row of rows) found.push({ id: row.id, gone: Boolean(row.gone) });
  }
  return found;
}

/**
 * What deleting `resource`'s item `id` writes by cascade, deepest first, among the resources `publishes` accepts
 * (the others are followed, not reported).
 */
export async function findCascadedItems(
  trx: Knex.Transaction,
  registry: MetadataRegistry,
  resource: ResourceMetadata,
  id: ItemId,
  publishes: (resource: ResourceMetadata) => boolean,
): Promise<CascadedItem[]> {
  const deleted = new Map<ResourceMetadata, Set<ItemId>>([[resource, new Set([id])]]);
  const changed = new Map<ResourceMetadata, Set<ItemId>>();
  const report: CascadedItem[] = [];
  const add = (map: Map<ResourceMetadata, Set<ItemId>>, owner: ResourceMetadata, value: ItemId): boolean => {
    let ids = map.get(owner);
    if (!ids) map.set(owner, (ids = new Set()));
    if (ids.has(value)) return false;
    ids.add(value);
    return true;
  };
  let level: [ResourceMetadata, ItemId[]][] = [[resource, [id]]];
  while (level.length > 0) {
    const next = new Map<ResourceMetadata, ItemId[]>();
    for (const [target, ids] of level)
      for (const owner of registry.resources.filter((candidate) => candidate.stored))
        for (const field of owner.fields) {
          if (field.kind === 'scalar' || field.target !== target.name) continue;
          const soft = owner.softDelete?.column;
          if (field.kind === 'toOne' && field.onDelete === 'cascade') {
            for (const row of await selectLinked(trx, owner.table, field.column, ids, 'id', soft)) {
              const rowId = readItemId(owner.identifier, row.id);
              if (!add(deleted, owner, rowId)) continue;
              next.set(owner, [...(next.get(owner) ?? []), rowId]);
              if (!row.gone && publishes(owner)) report.push({ resource: owner, id: rowId, deleted: true });
            }
          } else if (publishes(owner) && (field.kind === 'toOne' ? field.onDelete === 'set null' : field.joinTable)) {
            const rows =
              field.kind === 'toOne'
                ? await selectLinked(trx, owner.table, field.column, ids, 'id', soft)
                : await selectLinked(
                    trx,
                    field.joinTable!.table,
                    field.joinTable!.targetColumn,
                    ids,
                    field.joinTable!.ownColumn,
                    undefined,
                  );
            for (const row of rows) if (!row.gone) add(changed, owner, readItemId(owner.identifier, row.id));
          }
        }
    level = [...next];
  }
  // Deepest first, as the database removes them; then the items that stay, changed, unless a cascade took them too.
  report.reverse();
  for (const [owner, ids] of changed)
    for (const changedId of ids)
      if (!deleted.get(owner)?.has(changedId)) report.push({ resource: owner, id: changedId, deleted: false });
  return report;
}

/** The cascade lookup of one app, made once at start (the write stage asks it, inside a DELETE's transaction). */
export interface CascadeLookup {
  /** Whether a write of `operation` deletes items the database's cascades reach beyond them. */
  reaches(resource: ResourceMetadata, operation: { readonly kind: string }): boolean;
  /** What deleting `resource`'s item `id` writes by cascade, among the resources `reported` accepts. */
  find(
    trx: Knex.Transaction,
    resource: ResourceMetadata,
    id: ItemId,
    reported: (resource: ResourceMetadata) => boolean,
  ): Promise<CascadedItem[]>;
}

export function createCascadeLookup(registry: MetadataRegistry): CascadeLookup {
  const targets = listCascadeTargets(registry);
  return {
    reaches: (resource, operation) => operation.kind === 'delete' && !resource.softDelete && targets.has(resource.name),
    find: (trx, resource, id, reported) => findCascadedItems(trx, registry, resource, id, reported),
  };
}
