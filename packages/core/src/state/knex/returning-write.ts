/**
 * A write that answers the rows it wrote, on every database. SQLite and PostgreSQL run it with RETURNING. MariaDB and
 * MySQL have no RETURNING on UPDATE (and knex leaves it out of every statement there): the INSERT answers the new
 * auto-increment id, an UPDATE or DELETE its count of rows, and the rows are then read back by their key, on the same
 * connection or transaction. A write that returns only its key reads nothing back.
 */
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { makeItemId } from '../../metadata/identifier.js';
import type { IdentifierMetadata } from '../../metadata/types.js';
import type { Dialect } from '../dialects/dialect.js';

/**
 * The id a new row is inserted with, when it is not the database's auto-increment: the framework's UUID, or, for a
 * UUID the database makes, one made here where the INSERT cannot return it (MariaDB; its `UUID()` is version 1 too,
 * while PostgreSQL's `gen_random_uuid()` and SQLite's default make version 4, as `randomUUID` does).
 */
export function makeInsertId(dialect: Dialect, identifier: IdentifierMetadata): string | undefined {
  const made = makeItemId(identifier);
  if (made !== undefined || dialect.returning || identifier.type !== 'uuid') return made;
  return randomUUID();
}

export interface ReturningWrite {
  /** The INSERT, UPDATE or DELETE, without `.returning()`. */
  readonly query: Knex.QueryBuilder;
  readonly kind: 'insert' | 'update' | 'delete';
  /** Where the rows are read back from (MariaDB). */
  readonly table: string;
  /**
   * The written row's key, to read it back by (MariaDB): `{ id }` for the item updated or deleted, or for a new one
   * whose id was made before the INSERT (a UUID); undefined for an INSERT the database numbers.
   */
  readonly key?: Readonly<Record<string, unknown>>;
  readonly columns: readonly string[];
  /** Runs the statement (alone, or in the write's transaction) and answers what the driver returned. */
  readonly run: (query: Knex.QueryBuilder) => Promise<unknown>;
  /** The knex instance or transaction the statement runs on, to read the rows back with. */
  readonly db: Knex;
}

/** The rows `write` wrote, with `write.columns`: none when it changed no row. */
export async function runReturningWrite<T = Record<string, unknown>>(
  dialect: Dialect,
  write: ReturningWrite,
): Promise<T[]> {
  const { query, kind, columns } = write;
  if (dialect.returning) return (await write.run(query.returning(columns as string[]))) as T[];
  const result = await write.run(query);
  let key = write.key;
  if (kind === 'insert') {
    // knex answers `[insertId]`: the auto-increment id, or 0 when the row brought its own.
    key ??= { id: (result as number[])[0] };
  } else if (Number(result) === 0) return [];
  if (!key) return [];
  if (columns.every((column) => column in key)) return [pick(key, columns) as T];
  if (kind === 'delete') return [];
  return (await write
    .db(write.table)
    .where(key)
    .select(columns as string[])) as T[];
}

const pick = (row: Readonly<Record<string, unknown>>, columns: readonly string[]): Record<string, unknown> =>
  Object.fromEntries(columns.map((column) => [column, row[column]]));
