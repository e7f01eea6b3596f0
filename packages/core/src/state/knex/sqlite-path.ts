/**
 * The statement runner's SQLite path (`statements.ts`): the built SQL runs straight on the single better-sqlite3
 * connection, through a cache of prepared statements; single-statement writes are committed in groups
 * (`group-commit.ts`).
 *
 * Isolation stays as it was: while a knex transaction holds the connection, the reads of the database's knex go to the
 * read-only connection (the committed state) or, without one, through knex, waiting for the transaction to end; they
 * never see another request's uncommitted writes.
 *
 * The transactions this path opens itself (`transaction`, an SQLite file: `group-transactions.ts`) run their
 * statements here too: while one is open it alone uses the connection, so a statement built on it runs straight on
 * the connection, inside it, as knex would have run it there (knex's runner, with a fresh `prepare()` per statement,
 * made a write with a hook of the user's in its transaction measurably slower than one without: docs/performance.md).
 *
 * On a file, a third connection holds the read lock while reads run, so that they skip its system calls; it lets go
 * before anything else runs (`held-read-lock.ts`).
 */
import type { Knex } from 'knex';
import { BoundedMemo } from '../../bounded-memo.js';
import { createGroupCommit } from './group-commit.js';
import { createGroupTransactions } from './group-transactions.js';
import { type DirectPath, emitQuery, MAX_STATEMENTS } from './direct-path.js';
import type { SqliteConnection, SqliteStatement } from './sqlite-connection.js';
import { createHeldReadLock } from './held-read-lock.js';
import { completeStatementSpan, createStatementSpan } from '../../telemetry/sql-spans.js';

/** A prepared statement, and for a read, how its rows (arrays, in raw mode) become objects. */
interface Prepared {
  readonly statement: SqliteStatement;
  readonly reader: boolean;
  /** A read that changes nothing (a SELECT; not a write with RETURNING, nor BEGIN or COMMIT, which return no rows). */
  readonly readsOnly: boolean;
  readonly toRow: ((values: readonly unknown[]) => Record<string, unknown>) | undefined;
}

/**
 * Row objects for a read: better-sqlite3 builds each row with one V8 API call per column, the slow, generic way (a
 * lookup and a shape change per property), a large part of a 10-row page's statement (docs/performance.md). In raw mode
 * it returns arrays instead, and each becomes a copy of a template object that already has every column (one shape for
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
  return { statement, reader: statement.reader, readsOnly: statement.reader && statement.readonly, toRow };
}

/** What knex's better-sqlite3 client does to bindings, so both paths bind the same values. */
const toSqlite = (value: unknown): unknown =>
  value instanceof Date ? value.valueOf() : typeof value === 'boolean' ? Number(value) : value;

export function createSqlitePath(
  knex: Knex,
  connectionOf: () => SqliteConnection | null,
  readerOf?: () => SqliteConnection | null,
  lockHolderOf?: () => SqliteConnection | null,
): DirectPath {
  const cache = new WeakMap<SqliteConnection, BoundedMemo<string, Prepared>>();

  function statement(connection: SqliteConnection, sql: string): Prepared {
    let statements = cache.get(connection);
    if (!statements) cache.set(connection, (statements = new BoundedMemo(MAX_STATEMENTS)));
    return statements.get(sql) ?? statements.keep(sql, prepare(connection, sql));
  }

  const readLock = lockHolderOf ? createHeldReadLock(knex, lockHolderOf) : undefined;

  /** The connection, when it is open and no knex transaction holds it. */
  const free = (): SqliteConnection | null => {
    const connection = connectionOf();
    return connection?.open && !connection.inTransaction ? connection : null;
  };

  /** Runs a statement, in a span of its own while a span records (`telemetry/sql-spans.ts`). */
  function execute<T>(connection: SqliteConnection, sql: string, bindings: readonly unknown[], method = 'select'): T[] {
    emitQuery(knex, sql, bindings, method);
    const span = createStatementSpan('sqlite', sql);
    if (span === undefined) return executeStatement<T>(connection, sql, bindings);
    try {
      const rows = executeStatement<T>(connection, sql, bindings);
      completeStatementSpan(span);
      return rows;
    } catch (error) {
      completeStatementSpan(span, error);
      throw error;
    }
  }

  function executeStatement<T>(connection: SqliteConnection, sql: string, bindings: readonly unknown[]): T[] {
    const { statement: prepared, reader, readsOnly, toRow } = statement(connection, sql);
    if (readsOnly) readLock?.hold();
    else readLock?.release();
    if (!reader) {
      prepared.run(...bindings.map(toSqlite));
      return [];
    }
    const rows = prepared.all(...bindings.map(toSqlite));
    if (!toRow) return rows as T[];
    for (let index = 0; index < rows.length; index++) rows[index] = toRow(rows[index] as unknown[]);
    return rows as T[];
  }

  const groupCommit = createGroupCommit(free, execute);

  /** The transactions of `transaction` while they are open. */
  const held = new WeakSet<Knex>();
  /** The connection, when `db` is one of those and holds it. */
  const heldBy = (db: Knex): SqliteConnection | null => {
    if (!held.has(db)) return null;
    const connection = connectionOf();
    return connection?.open && connection.inTransaction ? connection : null;
  };

  /**
   * Where a read runs: the main connection when it is free, else (a knex transaction holds it) the read-only one, which
   * sees what is committed, as a read waiting for the transaction would have seen when it ends, without waiting.
   */
  const forRead = (): SqliteConnection | null => free() ?? readerOf?.() ?? null;

  /** Runs a statement without result on the connection when a transaction holds it; false when none does. */
  const runInTransaction = (sql: string): boolean => {
    const connection = connectionOf();
    if (!connection?.open || !connection.inTransaction) return false;
    execute(connection, sql, [], 'raw');
    return true;
  };

  /** Where a statement of `db` runs now; null: through knex. */
  const connectionFor = (db: Knex): SqliteConnection | null => (db === knex ? forRead() : heldBy(db));

  return {
    // Every caller checks `usable` and then runs in the same synchronous step: the connection is still what it was
    // then.
    usable: (db) => connectionFor(db) !== null,
    returnsRows: (sql, _method, db) => statement(connectionFor(db)!, sql).reader,
    run: (sql, bindings, method, _fixedShape, db) => execute(connectionFor(db)!, sql, bindings, method),
    async write<T>(query: Knex.QueryBuilder, db: Knex = knex): Promise<T[]> {
      const connection = db === knex ? free() : heldBy(db);
      if (!connection) return (await query) as T[];
      const compiled = query.toSQL();
      const { sql, bindings } = compiled.toNative();
      if (db !== knex) return execute<T>(connection, sql, bindings, compiled.method);
      return groupCommit(sql, bindings, compiled.method, async () => (await query) as unknown[]) as Promise<T[]>;
    },
    // A file (it has a read-only connection for the reads meanwhile): transactions share their commits.
    ...(readerOf ? { transaction: createGroupTransactions(knex, runInTransaction, held) } : {}),
  };
}
