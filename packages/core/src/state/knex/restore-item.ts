/**
 * The write of a soft-deleted resource's `restore` operation: one UPDATE that clears the deletion field of a deleted
 * item, and stamps it as any update (`timestamp: 'update'` fields, `blame: 'update'` relations). It only touches a row
 * whose field is set, so two restores at once, or a restore and a delete, never leave the item half-way: none updated
 * means the item is live (409, nothing to restore) or gone (404). A live item that now holds the same unique values
 * makes the database's partial unique index refuse it (the caller translates that into the Unique violation).
 */
import type { Knex } from 'knex';
import { ApiError } from '../../errors.js';
import type { Entity, ResourceMetadata, StateContext } from '../../metadata/types.js';
import type { Dialect } from '../dialects/dialect.js';
import { runReturningWrite } from './returning-write.js';
import type { RowMapper, WriteStamp } from './row-mapper.js';

/** What the restore needs of the built-in state. */
export interface RestoreParts {
  readonly knex: Knex;
  readonly dialect: Dialect;
  readonly mapperOf: (resource: ResourceMetadata) => RowMapper;
  /** One write statement, with its RETURNING rows: alone, or in `trx`. */
  readonly write: <T>(query: Knex.QueryBuilder, trx?: Knex) => Promise<T[]>;
  /** The rows of a read: alone, or in `trx`. */
  readonly read: <T>(query: Knex.QueryBuilder, trx?: Knex) => Promise<T[]>;
  /** Loads the to-many relations of `items` (from `db`). */
  readonly loadToMany: (mapper: RowMapper, items: Entity[], db: Knex) => Promise<void>;
}

/**
 * Restores the deleted item `id` of `resource` (a soft-deleted one); returns it as stored. `trx`: the transaction the
 * write runs in (a processor or hook of the user's runs there too), else the statement runs alone.
 */
export async function restoreItem(
  resource: ResourceMetadata,
  id: NonNullable<StateContext['id']>,
  stamp: WriteStamp,
  parts: RestoreParts,
  trx?: Knex.Transaction,
): Promise<Entity> {
  const { column } = resource.softDelete!;
  const mapper = parts.mapperOf(resource);
  const db = trx ?? parts.knex;
  const row: Record<string, unknown> = { [column]: null };
  mapper.stampRow(row, stamp);
  const [stored] = await runReturningWrite(parts.dialect, {
    query: db(mapper.table).where('id', id).whereNotNull(column).update(row),
    kind: 'update',
    table: mapper.table,
    key: { id },
    columns: mapper.columns,
    run: (query) => parts.write(query, trx),
    db,
  });
  if (stored) {
    const item = mapper.toEntity(stored);
    await parts.loadToMany(mapper, [item], db);
    return item;
  }
  // Nothing restored: the row is there and live (restored, or never deleted, by then), or it is not there at all.
  const [found] = await parts.read(db(mapper.table).where('id', id).select('id'), trx);
  if (found) throw new ApiError('CONFLICT', `The ${resource.name} is not deleted: there is nothing to restore.`);
  throw new ApiError('ITEM_NOT_FOUND', 'Not Found');
}
