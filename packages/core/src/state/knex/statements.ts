/**
 * Runs the built-in state's reads and its writes that are a single statement on a direct path of the database opened
 * here, instead of through knex's runner:
 * - SQLite (`sqlite-path.ts`): straight on the single better-sqlite3 connection, through a cache of prepared
 *   statements (knex's runner, its pool and a fresh `prepare()` per query were a large part of an item GET's CPU);
 * - PostgreSQL (`postgres-path.ts`): on a connection of knex's own pool, through pg's `query`;
 * - MariaDB and MySQL (`mysql-path.ts`): on a connection of knex's own pool, through mysql2's `query`.
 *
 * The reads are written by `state/sql/` (`select`: pages, items, links, uniqueness checks), their text the key of
 * their prepared statement; what knex builds (`rows`: the restore's read, in its transaction; `write`: inserts,
 * updates and deletes) is compiled by it and run here too. Transactions (`db` other than the database's own knex), but
 * those the SQLite path opened itself, and knex instances handed in from outside (which may carry their own hooks,
 * such as `postProcessResponse`) take knex's own runner.
 *
 * Listeners of knex's `query` event (tests counting statements, the bench) still see every statement.
 */
import type { Knex } from 'knex';
import type { Database } from '../database.js';
import type { DirectPath } from './direct-path.js';
import type { Transact } from './group-transactions.js';
import { createMysqlPath } from './mysql-path.js';
import { createPostgresPath } from './postgres-path.js';
import { createSqlitePath } from './sqlite-path.js';

export type { SqliteConnection } from './sqlite-connection.js';

export interface StatementRunner {
  /**
   * The rows of a query built on the database's knex (or on a transaction, then run by knex): a read, or a single
   * write with RETURNING.
   */
  rows<T = Record<string, unknown>>(query: Knex.QueryBuilder | Knex.Raw, db?: Knex): Promise<T[]>;
  /**
   * The rows of a read written by `state/sql/` (a `?` for each value): on the direct path, in the database's own
   * placeholders, kept prepared by its text (which depends only on the statement's shape); else (a transaction knex
   * runs, a knex handed in) run by knex as raw SQL. `db`: the database's knex (default) or a transaction.
   */
  select<T = Record<string, unknown>>(
    statement: { readonly sql: string; readonly bindings: readonly unknown[] },
    db?: Knex,
  ): Promise<T[]>;
  /**
   * A write that is one statement: its rows with RETURNING (none without: knex leaves RETURNING out of a DELETE on
   * SQLite). On the database's knex (no `db`), on SQLite, it is committed with the other such writes of the same turn
   * (`group-commit.ts`); in a transaction of `transaction`'s, it runs there directly; elsewhere knex runs it.
   */
  write<T = Record<string, unknown>>(query: Knex.QueryBuilder, db?: Knex): Promise<T[]>;
  /**
   * Runs `work` in a transaction, when the path has a way of its own (on an SQLite file: transactions that share their
   * commits, `group-transactions.ts`, whose statements run on the direct path); absent, knex's `transaction`.
   */
  readonly transaction?: Transact;
}

const isMysql = (knex: Knex): boolean => /mysql/.test(String(knex.client.config.client));

/** A statement written by `state/sql/`, run by knex as raw SQL (its result's rows, whatever the driver). */
async function rawRows<T>(
  knex: Knex,
  statement: { readonly sql: string; readonly bindings: readonly unknown[] },
): Promise<T[]> {
  const result = (await knex.raw(statement.sql, statement.bindings as Knex.RawBinding[])) as
    | T[]
    | { rows: T[] }
    | [T[], unknown];
  if (!Array.isArray(result)) return result.rows;
  // mysql2 answers `[rows, fields]`; better-sqlite3 the rows.
  return isMysql(knex) ? (result as [T[], unknown])[0] : (result as T[]);
}

/** knex runs everything: a knex instance handed in from outside. */
const knexOnly = (knex: Knex): StatementRunner => ({
  select: (statement, db = knex) => rawRows(db, statement),
  rows: (query) => query as unknown as Promise<never[]>,
  write: (query) => query as unknown as Promise<never[]>,
});

export function createStatementRunner(database: Database): StatementRunner {
  const { knex } = database;
  const path: DirectPath | undefined = database.sqliteConnection
    ? createSqlitePath(knex, database.sqliteConnection, database.sqliteReader, database.sqliteLockHolder)
    : database.postgresPool
      ? createPostgresPath(knex, database.postgresPool)
      : database.mysqlPool
        ? createMysqlPath(knex, database.mysqlPool)
        : undefined;
  return path ? directRunner(knex, path) : knexOnly(knex);
}

/** The runner over a direct path: what the path cannot run (or not now) goes through knex. */
function directRunner(knex: Knex, path: DirectPath): StatementRunner {
  async function compiledRows<T>(
    build: () => Knex.QueryBuilder | Knex.Raw,
    compiled: { sql: string; bindings: readonly unknown[] },
    method = 'select',
    db: Knex = knex,
  ): Promise<T[]> {
    if (!path.usable(db) || !path.returnsRows(compiled.sql, method, db)) return (await build()) as T[];
    return path.run<T>(compiled.sql, compiled.bindings, method, false, db);
  }

  async function rows<T>(query: Knex.QueryBuilder | Knex.Raw, db: Knex = knex): Promise<T[]> {
    if (!path.usable(db)) return (await query) as T[];
    const compiled = query.toSQL();
    return compiledRows<T>(() => query, compiled.toNative(), compiled.method, db);
  }

  /** `?` → the database's placeholders (`$1` on PostgreSQL), as knex's own compiler writes them. */
  const client = knex.client as { positionBindings?: (sql: string) => string };
  const native = client.positionBindings ? (sql: string) => client.positionBindings!(sql) : (sql: string) => sql;

  return {
    rows,
    async select<T>(
      statement: { readonly sql: string; readonly bindings: readonly unknown[] },
      db: Knex = knex,
    ): Promise<T[]> {
      const sql = native(statement.sql);
      if (!path.usable(db) || !path.returnsRows(sql, 'select', db)) return rawRows<T>(db, statement);
      return path.run<T>(sql, statement.bindings, 'select', true, db);
    },
    write: path.write ? (query, db) => path.write!(query, db) : (query) => query as unknown as Promise<never[]>,
    ...(path.transaction ? { transaction: path.transaction } : {}),
  };
}
