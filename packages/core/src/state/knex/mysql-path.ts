/**
 * The statement runner's MariaDB and MySQL path (`statements.ts`): a read runs on a connection of knex's own pool
 * through mysql2's `query`, with the SQL and bindings knex compiled (`?` placeholders, which mysql2 fills in as knex's
 * runner has it do). The pool, its acquire timeout and the connections' settings (the session's SQL mode and time
 * zone, mysql2's `typeCast` and date strings: `mysql-database.ts`) are knex's, as for any query; what is skipped is
 * knex's runner around the query (its building, compiling and result handling were most of the framework's own CPU
 * per page on MariaDB, in `pnpm bench`'s W7-mariadb).
 *
 * Writes, transactions and raw statements stay with knex: only `select`s come here.
 */
import type { Knex } from 'knex';
import { completeStatementSpan, createStatementSpan } from '../../telemetry/sql-spans.js';
import { type DirectPath, emitQuery, type KnexPool } from './direct-path.js';

/** The part of a mysql2 (callback) connection used here. */
interface Mysql2Connection {
  query(
    options: { sql: string; values: readonly unknown[] },
    callback: (error: Error | null, rows: unknown) => void,
  ): void;
}

function query<T>(connection: Mysql2Connection, sql: string, values: readonly unknown[]): Promise<T[]> {
  return new Promise((resolve, reject) =>
    connection.query({ sql, values }, (error, rows) => (error ? reject(error) : resolve(rows as T[]))),
  );
}

export function createMysqlPath(knex: Knex, pool: KnexPool): DirectPath {
  return {
    usable: (db) => db === knex,
    returnsRows: (_sql, method) => method === 'select',
    async run<T>(sql: string, bindings: readonly unknown[], method: string | undefined): Promise<T[]> {
      emitQuery(knex, sql, bindings, method);
      // The span (while one records) covers the wait for a connection too: under load, that is where time goes.
      const span = createStatementSpan('mysql', sql);
      let rows: T[];
      try {
        const connection = (await pool.acquire()) as Mysql2Connection;
        try {
          rows = await query<T>(connection, sql, bindings);
        } finally {
          pool.release(connection);
        }
      } catch (error) {
        if (span) completeStatementSpan(span, error);
        throw error;
      }
      if (span) completeStatementSpan(span);
      return rows;
    },
  };
}
