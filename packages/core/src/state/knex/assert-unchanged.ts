/**
 * Lost-update protection for the built-in processor (a request's `If-Match` held against the item it read): called
 * first inside the write transaction. It takes the item's write lock, reads the item again, and throws 412 when it no
 * longer equals the item the condition was checked against; otherwise the write goes on under the lock.
 *
 * Why here and not in the read stage: the read and the If-Match check happen before the body is applied and
 * validated, outside any transaction, so two writers holding the same ETag can both pass them. Only the database can
 * order them, and it must do it for every process on it (several app instances share one PostgreSQL):
 *
 * - PostgreSQL and MariaDB: `SELECT … FOR UPDATE` locks the row until the transaction ends; the second writer waits,
 *   then reads the first one's committed state, which differs from what it checked: 412.
 * - SQLite: there are no row locks; a no-op `UPDATE … SET id = id` of the row takes the database's write lock at
 *   once (what `BEGIN IMMEDIATE` would do; knex opens transactions with a plain `BEGIN`), so the read that follows
 *   sees the last committed state and no other connection can write until the commit. Inside one process the pool's
 *   single connection already serializes transactions; the lock matters when other processes share the file.
 *
 * Comparing the stored items, not re-rendering them, keeps the transaction short and free of reads outside it.
 */
import { isDeepStrictEqual } from 'node:util';
import type { Knex } from 'knex';
import { ApiError } from '../../errors.js';
import type { Entity, ItemId, ResourceMetadata } from '../../metadata/types.js';
import type { Dialect } from '../dialects/dialect.js';

export interface AssertUnchangedOptions {
  readonly trx: Knex.Transaction;
  readonly dialect: Dialect;
  readonly resource: ResourceMetadata;
  readonly table: string;
  readonly id: ItemId;
  /** The item the request's precondition held against. */
  readonly expected: Entity;
  /** Reads the item again, inside the transaction. */
  readonly reread: () => Promise<Entity | null>;
}

export async function assertUnchanged(options: AssertUnchangedOptions): Promise<void> {
  const { trx, table, id } = options;
  // SQLite has no FOR UPDATE: a no-op UPDATE takes the database's write lock instead.
  if (options.dialect.name !== 'sqlite') await trx(table).select('id').where('id', id).forUpdate();
  else
    await trx(table)
      .where('id', id)
      .update({ id: trx.ref('id') });
  const current = await options.reread();
  if (!isDeepStrictEqual(current, options.expected)) {
    throw new ApiError(
      'PRECONDITION_FAILED',
      `The ${options.resource.name} changed since you read it: none of the ETags in If-Match is its current one. GET it again and send its new ETag.`,
    );
  }
}
