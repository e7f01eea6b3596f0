/**
 * Runs the built-in state's read queries, and its writes that are a single statement. knex builds every query; on SQLite the built SQL then runs straight on the
 * single better-sqlite3 connection through a cache of prepared statements, instead of through knex's runner, its pool
 * and a fresh `prepare()` per query. Profiled on an item GET, that path took about 40% of the CPU; the SQL itself a few
 * microseconds.
 *
 * Isolation stays as it was: while a knex transaction holds the connection (between its awaits), reads go through knex
 * and so wait for the transaction to end, exactly as before; they never see another request's uncommitted writes.
 * Transactions (`db` other than the database's own knex), PostgreSQL, and knex instances handed in from outside all
 * take knex's own path.
 *
 * Listeners of knex's `query` event (tests counting statements, the bench) still see every statement.
 */
import type { Knex } from 'knex';
import type { Database } from '../database.js';
import { createGroupCommit } from './group-commit.js';

/** The part of a better-sqlite3 connection used here. */
export interface SqliteConnection {
  readonly open: boolean;
  readonly inTransaction: boolean;
  prepare(sql: string): SqliteStatement;
}

interface SqliteStatement {
  readonly reader: boolean;
  all(...bindings: unknown[]): unknown[];
  run(...bindings: unknown[]): unknown;
  raw(toggle: boolean): SqliteStatement;
  columns(): { readonly name: string }[];
}

/** A prepared statement, and for a read, how its rows (arrays, in raw mode) become objects. */
interface Prepared {
  readonly statement: SqliteStatement;
  readonly reader: boolean;
  readonly toRow: ((values: readonly unknown[]) => Record<string, unknown>) | undefined;
}

export interface StatementRunner {
  /**
   * The rows of a query built on the database's knex (or on a transaction, then run by knex): a read, or a single
   * write with RETURNING.
   */
  rows<T = Record<string, unknown>>(query: Knex.QueryBuilder | Knex.Raw, db?: Knex): Promise<T[]>;
  /** `rows(query)` for a query already compiled: `compiled` is its `toSQL().toNative()`, not compiled again. */
  compiledRows<T = Record<string, unknown>>(query: Knex.QueryBuilder, compiled: { sql: string; bindings: readonly unknown[] }): Promise<T[]>;
  /**
   * The rows of a query whose SQL depends only on `shape`: knex builds and compiles it the first time; afterwards the
   * SQL is reused with `bindings`, and `build` is not called. The first compilation is checked: its bindings must be
   * exactly `bindings`, in order, or the shape is never cached (the query is then built every time, still correct).
   * `shape` must therefore name everything that changes the SQL text (table, columns, list lengths, ...).
   */
  shaped<T = Record<string, unknown>>(shape: string, bindings: readonly unknown[], build: () => Knex.QueryBuilder, db?: Knex): Promise<T[]>;
  /**
   * A write that is one statement, on the database's knex: its rows with RETURNING (none without: knex leaves
   * RETURNING out of a DELETE on SQLite). On SQLite it is committed with the other such writes of the same turn
   * (`group-commit.ts`); elsewhere knex runs it.
   */
  write<T = Record<string, unknown>>(query: Knex.QueryBuilder): Promise<T[]>;
}

/** Enough for every SQL shape a set of resources and filter combinations produces; past it, the cache starts over. */
const MAX_STATEMENTS = 1000;

/**
 * Row objects for a read: better-sqlite3 builds each row with one V8 API call per column, the slow, generic way (a
 * lookup and a shape change per property), which measured as a quarter of a 10-row page's statement. In raw mode it
 * returns arrays instead, and each becomes a copy of a template object that already has every column (one shape for
 * all the statement's rows, so the copy is a fast clone and the stores change no shape), filled in column order. Same
 * keys, same values, same key order; a later duplicate name wins, as before. A column named `__proto__` would set the
 * prototype instead, so such a statement keeps better-sqlite3's own objects.
 */
function rowFactory(statement: SqliteStatement): Prepared['toRow'] {
  const names = statement.columns().map((column) => column.name);
  if (names.includes('__proto__')) return undefined;
  const template: Record<string, unknown> = {};
  for (const name of names) template[name] = null;
  return (values) => {
    const row = { ...template };
    for (let index = 0; index < names.length; index++) row[names[index]!] = values[index];
    return row;
  };
}

function prepare(connection: SqliteConnection, sql: string): Prepared {
  const statement = connection.prepare(sql);
  const toRow = statement.reader ? rowFactory(statement) : undefined;
  if (toRow) statement.raw(true);
  return { statement, reader: statement.reader, toRow };
}

/** What knex's better-sqlite3 client does to bindings, so both paths bind the same values. */
const toSqlite = (value: unknown): unknown => (value instanceof Date ? value.valueOf() : typeof value === 'boolean' ? Number(value) : value);

const sameBindings = (compiled: readonly unknown[], expected: readonly unknown[]): boolean =>
  compiled.length === expected.length && compiled.every((value, index) => value === expected[index]);

export function createStatementRunner(database: Database): StatementRunner {
  const { knex } = database;
  const connectionOf = database.sqliteConnection;
  if (!connectionOf) {
    return {
      rows: (query) => query as unknown as Promise<never[]>,
      compiledRows: (query) => query as unknown as Promise<never[]>,
      shaped: (_shape, _bindings, build) => build() as unknown as Promise<never[]>,
      write: (query) => query as unknown as Promise<never[]>,
    };
  }
  /** SQL per shape; null when the shape's first compilation did not bind what the caller said. */
  const shapes = new Map<string, string | null>();

  const cache = new WeakMap<SqliteConnection, Map<string, Prepared>>();

  function statement(connection: SqliteConnection, sql: string): Prepared {
    let statements = cache.get(connection);
    if (!statements) cache.set(connection, (statements = new Map()));
    let prepared = statements.get(sql);
    if (!prepared) {
      if (statements.size >= MAX_STATEMENTS) statements.clear();
      prepared = prepare(connection, sql);
      statements.set(sql, prepared);
    }
    return prepared;
  }

  const usable = (db: Knex): SqliteConnection | null => {
    const connection = db === knex ? connectionOf() : null;
    return connection && connection.open && !connection.inTransaction ? connection : null;
  };

  function execute<T>(connection: SqliteConnection, sql: string, bindings: readonly unknown[], method = 'select'): T[] {
    if (knex.client.listenerCount('query') > 0) knex.client.emit('query', { sql, bindings, method, __knexUid: 'statement-runner' });
    const { statement: prepared, reader, toRow } = statement(connection, sql);
    if (!reader) {
      prepared.run(...bindings.map(toSqlite));
      return [];
    }
    const rows = prepared.all(...bindings.map(toSqlite));
    if (!toRow) return rows as T[];
    for (let index = 0; index < rows.length; index++) rows[index] = toRow(rows[index] as unknown[]);
    return rows as T[];
  }

  /** Runs a compiled read (or write with RETURNING) on the connection; through knex when it cannot. */
  async function compiledRows<T>(query: Knex.QueryBuilder | Knex.Raw, compiled: { sql: string; bindings: readonly unknown[] }, method?: string): Promise<T[]> {
    const connection = usable(knex);
    // Statements that return rows: reads, and writes with RETURNING (one statement, atomic on its own).
    if (!connection || !statement(connection, compiled.sql).reader) return (await query) as T[];
    return execute<T>(connection, compiled.sql, compiled.bindings, method);
  }

  async function rows<T>(query: Knex.QueryBuilder | Knex.Raw, db: Knex = knex): Promise<T[]> {
    if (!usable(db)) return (await query) as T[];
    const compiled = query.toSQL();
    return compiledRows<T>(query, compiled.toNative(), compiled.method);
  }

  const groupCommit = createGroupCommit(() => usable(knex), execute);

  return {
    rows,
    compiledRows,
    async write<T>(query: Knex.QueryBuilder): Promise<T[]> {
      if (!usable(knex)) return (await query) as T[];
      const compiled = query.toSQL();
      const { sql, bindings } = compiled.toNative();
      return groupCommit(sql, bindings, compiled.method, async () => (await query) as unknown[]) as Promise<T[]>;
    },
    async shaped<T>(shape: string, bindings: readonly unknown[], build: () => Knex.QueryBuilder, db: Knex = knex): Promise<T[]> {
      const connection = usable(db);
      if (!connection) return (await build()) as T[];
      const cached = shapes.get(shape);
      if (cached) return execute<T>(connection, cached, bindings);
      const query = build();
      if (cached === null) return rows<T>(query, db);
      const compiled = query.toSQL().toNative();
      const reusable = sameBindings(compiled.bindings, bindings) && statement(connection, compiled.sql).reader;
      if (shapes.size >= MAX_STATEMENTS) shapes.clear();
      shapes.set(shape, reusable ? compiled.sql : null);
      return reusable ? execute<T>(connection, compiled.sql, compiled.bindings) : ((await query) as T[]);
    },
  };
}
