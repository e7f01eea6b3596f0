/**
 * Opens the database named by a URL: `sqlite::memory:`, `sqlite:/path/file.db` (or a bare file path) through
 * better-sqlite3, `postgres://…` through pg, `mysql://…` and `mariadb://…` through mysql2 (`mysql-database.ts`). A knex
 * instance made elsewhere is accepted too.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { createRequire } from 'node:module';
import knexFactory, { type Knex } from 'knex';
import { DeclarationError } from '../errors.js';
import type { Dialect } from './dialects/dialect.js';
import { type KnexPool, createKnexPool } from './knex/direct-path.js';
import { postgresDialect, loadPostgresTypes } from './dialects/postgres.js';
import { sqliteDialect } from './dialects/sqlite.js';
import { mysqlDialect } from './dialects/mysql.js';
import { openMysqlDatabase } from './mysql-database.js';
import type { SqliteConnection } from './knex/sqlite-connection.js';
import { writeWalDatabaseSize } from './knex/sqlite-wal-size.js';

/** An open database (`openDatabase`, `app.resourceApi.database`): its knex instance, and `close()`. */
export interface Database {
  /** The knex instance: build queries with it. */
  readonly knex: Knex;
  /** @internal */
  readonly dialect: Dialect;
  /** Closes the pool, when this module opened it. */
  close(): Promise<void>;
  /**
   * SQLite opened here: the pool's one better-sqlite3 connection (null until knex has opened it), for the statement
   * runner's prepared statements. Absent on PostgreSQL and for knex instances handed in. @internal
   */
  readonly sqliteConnection?: () => SqliteConnection | null;
  /**
   * SQLite file opened here: a second, read-only connection, opened on first use. While a knex transaction holds the
   * main connection, the statement runner's reads go through it (WAL lets it read the last committed state beside
   * the writer) instead of waiting for the transaction to end. @internal
   */
  readonly sqliteReader?: () => SqliteConnection | null;
  /**
   * SQLite file opened here: a third, read-only connection, opened on first use, that serves no read: it holds the
   * file's read lock while the app reads, so that the reads of the other two skip its system calls
   * (`knex/held-read-lock.ts`). @internal
   */
  readonly sqliteLockHolder?: () => SqliteConnection | null;
  /**
   * PostgreSQL opened here: the connections of knex's pool, for the statement runner's reads. Absent on SQLite and
   * for knex instances handed in (their own settings, such as `postProcessResponse`, need knex's runner). @internal
   */
  readonly postgresPool?: KnexPool;
  /**
   * MariaDB or MySQL opened here: the connections of knex's pool, for the statement runner's reads through mysql2.
   * Absent elsewhere, and for knex instances handed in. @internal
   */
  readonly mysqlPool?: KnexPool;
}

/** What `openDatabase` opens: the plugin's `database`, `databaseSchema` and `databasePoolMax`, and where knex logs. */
export interface DatabaseOptions {
  /**
   * `sqlite::memory:`, `sqlite:/path/to/file.db`, `postgres://user@host:5432/db`, `mysql://user@host:3306/db` (or
   * `mariadb://…`), or a knex instance.
   */
  readonly url: string | Knex;
  /**
   * PostgreSQL: the schema to work in (created when missing); default: the connection's search path (`public`).
   * MariaDB and MySQL, where a schema is a database: the database to work in (created when missing), instead of the
   * URL's.
   */
  readonly schema?: string;
  /**
   * PostgreSQL, MariaDB and MySQL: the most connections this process keeps open (default 10). Each instance of the app
   * has its own pool, so N instances may hold N × max connections: keep that under the server's `max_connections`.
   */
  readonly poolMax?: number;
  /**
   * Where knex's own warnings go ("Acquire connection error", "Connection Error": a connection attempt failed or a
   * pooled connection broke), one line each without the stack; default: knex prints them, with stacks, to stdout.
   * The plugin passes Fastify's logger, so an outage does not scatter plain-text lines between the JSON ones.
   */
  readonly log?: DatabaseLog;
}

/** The part of a pino logger knex's messages need. */
export interface DatabaseLog {
  /** knex's warnings: a connection attempt failed, a pooled connection broke, something is deprecated. */
  warn(message: string): void;
  /** knex's errors. */
  error(message: string): void;
  /** knex's debug output. */
  debug(message: string): void;
}

/** knex's `log` option writing to `log`: the first line of each message (a stack trace follows it). */
function knexLog(log: DatabaseLog | undefined): Pick<Knex.Config, 'log'> {
  if (!log) return {};
  const line = (message: unknown) =>
    (typeof message === 'string' ? message : String((message as Error)?.message ?? message)).split('\n')[0]!;
  return {
    log: {
      warn: (message: unknown) => log.warn(line(message)),
      error: (message: unknown) => log.error(line(message)),
      // knex calls it with the whole sentence ("x is deprecated, please use y"), whatever its types say.
      deprecate: (message: unknown) => log.warn(line(message)),
      debug: (message: unknown) => log.debug(line(message)),
    },
  };
}

/** Milliseconds a new PostgreSQL connection may take to open (see `state/dialects/unavailable.ts` for the 503). */
const CONNECT_TIMEOUT = 3_000;
/** better-sqlite3 (knex's driver, which ships no types), for the read-only connection. */
type OpenSqlite = new (
  filename: string,
  options: { readonly: boolean; fileMustExist: boolean },
) => SqliteConnection & { close(): void; pragma(source: string): unknown };
const loadSqlite = (): OpenSqlite => createRequire(import.meta.url)('better-sqlite3') as OpenSqlite;

/** PostgreSQL connections per process unless `poolMax` says otherwise: knex's default. */
const DEFAULT_POOL_MAX = 10;
/**
 * The page size of the SQLite files created here (SQLite's own default is 4 KiB; InnoDB's is 16 KiB). Counting a
 * table (every collection page's `hydra:totalItems`) walks each leaf page of its narrowest index, so its cost follows
 * the number of pages: on a million rows, 16 KiB pages count several times faster than 4 KiB ones; an item read
 * stays the same. The price is on writes: each changed page goes to the WAL whole, so a single-row insert writes more
 * bytes (POSTs under load are somewhat slower; the figures: docs/performance.md). Set only on a file with no pages
 * yet.
 */
const SQLITE_PAGE_SIZE = 16_384;

/**
 * SQLite's page cache of the one connection, in KiB (a negative `cache_size`). better-sqlite3's default is 16 MB; on a
 * million books item reads at ids spread over the table mostly missed it and went to the file: 64 MiB serves them from
 * memory (W3 on a million books: docs/performance.md), and a page with its count is unchanged. The cache fills only as
 * pages are read, so a small database never holds
 * more than its size, and idle memory does not change; a large one holds up to 64 MiB more under load.
 */
const SQLITE_CACHE_KIB = 65_536;
/** Milliseconds a query may wait for a free connection of the pool, on either database. */
const ACQUIRE_TIMEOUT = 5_000;

/** Opens the database a URL names (or takes a knex instance); close it with `close()`. */
export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  const { url } = options;
  if (typeof url !== 'string') {
    const client = String(url.client.config.client);
    const dialect = /pg|postgres/.test(client)
      ? postgresDialect
      : /mysql|maria/.test(client)
        ? mysqlDialect
        : sqliteDialect;
    return { knex: url, dialect, close: async () => {} };
  }
  if (/^postgres(ql)?:\/\//.test(url)) {
    const schema = options.schema;
    if (schema !== undefined && !/^[a-z_][a-z0-9_]*$/.test(schema))
      throw new DeclarationError(`Invalid PostgreSQL schema name "${schema}".`);
    const knex = knexFactory({
      client: 'pg',
      // A connection attempt that gets no answer (a host down, a firewall dropping packets) fails after this long;
      // a refused one (the server stopped or restarting) fails at once.
      connection: {
        connectionString: url,
        types: await loadPostgresTypes(),
        connectionTimeoutMillis: CONNECT_TIMEOUT,
      } as Knex.PgConnectionConfig,
      // A request waits this long for a pooled connection, then gets a 503: not knex's default minute.
      acquireConnectionTimeout: ACQUIRE_TIMEOUT,
      ...(schema ? { searchPath: [schema] } : {}),
      pool: { min: 0, max: options.poolMax ?? DEFAULT_POOL_MAX },
      ...knexLog(options.log),
    });
    if (schema) await knex.raw('CREATE SCHEMA IF NOT EXISTS ??', [schema]);
    return { knex, dialect: postgresDialect, close: () => knex.destroy(), postgresPool: createKnexPool(knex) };
  }
  if (/^(mysql|mariadb):\/\//.test(url))
    return openMysqlDatabase({
      url,
      schema: options.schema,
      poolMax: options.poolMax ?? DEFAULT_POOL_MAX,
      connectTimeout: CONNECT_TIMEOUT,
      acquireTimeout: ACQUIRE_TIMEOUT,
      knexOptions: knexLog(options.log),
    });
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(url) && !url.startsWith('sqlite:')) {
    throw new DeclarationError(
      `Database URL "${url.replace(/\/\/[^@/]*@/, '//')}" is not supported: use "postgres://…", "mysql://…" (or "mariadb://…"), "sqlite:/path/file.db" or "sqlite::memory:".`,
    );
  }
  const filename = url.replace(/^sqlite:/, '');
  if (filename === '')
    throw new DeclarationError(`Database URL "${url}" names no file; use "sqlite::memory:" or "sqlite:/path/file.db".`);
  if (filename !== ':memory:') mkdirSync(dirname(filename), { recursive: true });
  let connection: SqliteConnection | null = null;
  /** Whether the file is in WAL mode (a file system without shared memory keeps it in its rollback journal). */
  let inWal = false;
  const knex = knexFactory({
    client: 'better-sqlite3',
    connection: { filename },
    useNullAsDefault: true,
    acquireConnectionTimeout: ACQUIRE_TIMEOUT,
    ...knexLog(options.log),
    pool: {
      min: 1,
      max: 1,
      afterCreate(
        created: SqliteConnection & { pragma(source: string, options?: { simple: boolean }): unknown },
        done: (error: Error | null, connection: unknown) => void,
      ) {
        created.pragma('foreign_keys = ON');
        created.pragma(`cache_size = -${SQLITE_CACHE_KIB}`);
        // Each write of a shared commit runs in a SAVEPOINT of its own, whose journal keeps the pages it changes.
        // With temporary files allowed, that journal moves to a file past 64 KiB (four 16 KiB pages: one insert with
        // its indexes), and the file then takes every later write's pages until the commit: a file made and deleted
        // per commit, and a write of each page. In memory, it is emptied at each write's RELEASE (more writes a second:
        // docs/performance.md). The read-only connection, where large sorts may run, keeps files.
        created.pragma('temp_store = MEMORY');
        // A new file gets larger pages; an existing file keeps the size it was made with (only a VACUUM changes it).
        if (created.pragma('page_count', { simple: true }) === 0) created.pragma(`page_size = ${SQLITE_PAGE_SIZE}`);
        // WAL lets readers run beside a writer and makes each commit far cheaper. Synchronous stays FULL (the
        // default): an acknowledged write survives a power cut too.
        if (filename !== ':memory:') inWal = created.pragma('journal_mode = WAL', { simple: true }) === 'wal';
        if (inWal) writeWalDatabaseSize(created);
        connection = created;
        done(null, created);
      },
    },
  });
  // A database in memory is the connection's own: no second connection can see it.
  if (filename === ':memory:')
    return { knex, dialect: sqliteDialect, close: () => knex.destroy(), sqliteConnection: () => connection };
  // Opened once the main connection has made the file and set WAL (without WAL a reader would wait on the writer).
  const openReadOnly = (cacheKib: number) => {
    const opened = new (loadSqlite())(filename, { readonly: true, fileMustExist: true });
    opened.pragma(`cache_size = -${cacheKib}`);
    return opened;
  };
  // Neither is opened again once closing has begun (a read may come while knex closes).
  let closing = false;
  let reader: (SqliteConnection & { close(): void }) | null = null;
  const sqliteReader = (): SqliteConnection | null => {
    if (!reader && !closing && connection?.open) reader = openReadOnly(SQLITE_CACHE_KIB);
    return reader;
  };
  // It reads one page of the schema, ever. Only in WAL mode: with a rollback journal, a held read lock would keep
  // other processes' writers from committing.
  let lockHolder: (SqliteConnection & { close(): void }) | null = null;
  const sqliteLockHolder = (): SqliteConnection | null => {
    if (!lockHolder && !closing && inWal && connection?.open) lockHolder = openReadOnly(64);
    return lockHolder;
  };
  const close = async () => {
    closing = true;
    // Before the main connection: the last connection to close checkpoints the WAL and removes it.
    lockHolder?.close();
    lockHolder = null;
    reader?.close();
    reader = null;
    await knex.destroy();
  };
  return {
    knex,
    dialect: sqliteDialect,
    close,
    sqliteConnection: () => connection,
    sqliteReader,
    sqliteLockHolder,
  };
}
