/**
 * What the statement runner (`statements.ts`) needs of a direct path, the way a database opened here runs compiled SQL
 * without knex's runner: `sqlite-path.ts`, `postgres-path.ts`.
 */
import type { Knex } from 'knex';
import { completeStatementSpan, createStatementSpan, type DatabaseSystem } from '../../telemetry/sql-spans.js';
import type { Transact } from './group-transactions.js';

/** Where compiled SQL runs instead of through knex's runner. */
export interface DirectPath {
  /**
   * Whether a query of `db` may run here now; when not, knex runs it. `db`: the database's knex, or a transaction
   * the path opened itself (`transaction`) while it holds the connection.
   */
  usable(db: Knex): boolean;
  /**
   * Whether this compiled statement returns rows here (reads, and on SQLite writes with RETURNING); others go through
   * knex.
   */
  returnsRows(sql: string, method: string | undefined, db: Knex): boolean;
  /**
   * Runs a statement that returns rows, for `db` (which `usable` accepted). `fixedShape`: its SQL is one of the
   * bounded set `shaped` keeps, so it may stay prepared on the server.
   */
  run<T>(
    sql: string,
    bindings: readonly unknown[],
    method: string | undefined,
    fixedShape: boolean,
    db: Knex,
  ): T[] | Promise<T[]>;
  /** `StatementRunner.write`, when the path has its own way of writing; knex runs writes otherwise. */
  write?<T = Record<string, unknown>>(query: Knex.QueryBuilder, db?: Knex): Promise<T[]>;
  /** `StatementRunner.transaction`, when the path has its own way of running transactions; knex's otherwise. */
  readonly transaction?: Transact;
}

/**
 * The connections of the pool knex opened (`database.ts`), acquired and released as knex's runner does, for a path
 * that runs a statement on one of them through the driver (PostgreSQL, MariaDB).
 */
export interface KnexPool {
  acquire(): Promise<unknown>;
  release(connection: unknown): void;
}

/** The connections of knex's own pool, for a path of a database opened here. */
export const createKnexPool = (knex: Knex): KnexPool => ({
  acquire: () => knex.client.acquireConnection(),
  release: (connection) => knex.client.releaseConnection(connection),
});

/** Enough for every SQL shape a set of resources and filter combinations produces; past it, the cache starts over. */
export const MAX_STATEMENTS = 1000;

/** Tells knex's `query` listeners of a statement run outside knex's runner, as knex itself would. */
export function emitQuery(knex: Knex, sql: string, bindings: readonly unknown[], method: string | undefined): void {
  if (knex.client.listenerCount('query') > 0)
    knex.client.emit('query', { sql, bindings, method, __knexUid: 'statement-runner' });
}

/**
 * A path for a networked database (PostgreSQL, MariaDB): a read runs on a connection of knex's own pool through the
 * driver's `query`, with the SQL and bindings knex compiled; writes, transactions and raw statements stay with knex.
 */
export function createPooledPath<Connection>(
  knex: Knex,
  pool: KnexPool,
  system: DatabaseSystem,
  query: (connection: Connection, sql: string, bindings: readonly unknown[]) => Promise<unknown[]>,
): DirectPath {
  return {
    usable: (db) => db === knex,
    returnsRows: (_sql, method) => method === 'select',
    async run<T>(sql: string, bindings: readonly unknown[], method: string | undefined): Promise<T[]> {
      emitQuery(knex, sql, bindings, method);
      // The span (while one records) covers the wait for a connection too: under load, that is where time goes.
      const span = createStatementSpan(system, sql);
      let rows: T[];
      try {
        const connection = (await pool.acquire()) as Connection;
        try {
          rows = (await query(connection, sql, bindings)) as T[];
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
