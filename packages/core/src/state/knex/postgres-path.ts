/**
 * The statement runner's PostgreSQL path (`statements.ts`): a read runs on a connection of knex's own pool through
 * pg's `query`, with the SQL and bindings knex compiled (`toSQL().toNative()`: `$1` placeholders, bindings as knex
 * prepares them). The pool, its acquire timeout, the search path and the type parsers are knex's, as for any query;
 * what is skipped is knex's runner around the query (in a profile of a page on PostgreSQL, knex's runner, its building
 * and compiling made up a fifth of the request's CPU).
 *
 * Writes, transactions and raw statements stay with knex: only `select`s come here.
 */
import type { Knex } from 'knex';
import { createPooledPath, type DirectPath, type KnexPool } from './direct-path.js';

/** The part of a pg client used here. */
interface PgClient {
  query(config: { text: string; values: readonly unknown[]; name?: string }): Promise<{ rows: unknown[] }>;
}

export function createPostgresPath(knex: Knex, pool: KnexPool): DirectPath {
  return createPooledPath<PgClient>(knex, pool, 'postgresql', async (connection, sql, values) => {
    return (await connection.query({ text: sql, values })).rows;
  });
}
