/**
 * The statement runner's MariaDB and MySQL path (`statements.ts`): a read runs on a connection of knex's own pool
 * through mysql2's `query`, with the SQL and bindings knex compiled (`?` placeholders, which mysql2 fills in as knex's
 * runner has it do). The pool, its acquire timeout and the connections' settings (the session's SQL mode and time
 * zone, mysql2's `typeCast` and date strings: `mysql-database.ts`) are knex's, as for any query; what is skipped is
 * knex's runner around the query (a large part of the app's CPU per page on MariaDB, in `pnpm bench`'s W7-mariadb:
 * docs/performance.md).
 *
 * Writes, transactions and raw statements stay with knex: only `select`s come here.
 */
import type { Knex } from 'knex';
import { createPooledPath, type DirectPath, type KnexPool } from './direct-path.js';

/** The part of a mysql2 (callback) connection used here. */
interface Mysql2Connection {
  query(
    options: { sql: string; values: readonly unknown[] },
    callback: (error: Error | null, rows: unknown) => void,
  ): void;
}

export function createMysqlPath(knex: Knex, pool: KnexPool): DirectPath {
  return createPooledPath<Mysql2Connection>(
    knex,
    pool,
    'mysql',
    (connection, sql, values) =>
      new Promise((resolve, reject) =>
        connection.query({ sql, values }, (error, rows) => (error ? reject(error) : resolve(rows as unknown[]))),
      ),
  );
}
