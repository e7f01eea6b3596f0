/**
 * Opens a MariaDB or MySQL database (`mysql://user:password@host:3306/db`, or `mariadb://…`) through knex's mysql2
 * client. Each connection of the pool is set up to read SQL as the other databases do, so the statements written in
 * `state/sql/` and the dialect's fragments are the same text on all three:
 * - ANSI_QUOTES: `"t0"."title"` quotes identifiers (knex's backticks still work);
 * - READ COMMITTED, PostgreSQL's level: a statement sees what was committed before it, and InnoDB takes no gap locks;
 * - time zone UTC, on the server and in mysql2 (`timezone: 'Z'`): a DATETIME holds the UTC instant, read back as it;
 * - DATE columns read as their `YYYY-MM-DD` text, as PostgreSQL's are here (mysql2 would make local-midnight Dates);
 *   DATETIME ones as text too, turned into Dates by the dialect (mysql2 misreads a year before 1000).
 */
import knexFactory, { type Knex } from 'knex';
import { DeclarationError } from '../errors.js';
import { importOptionalPackage } from '../optional-package.js';
import type { Dialect } from './dialects/dialect.js';
import { BINARY_COLLATION, mysqlDialect } from './dialects/mysql.js';
import { type KnexPool, createKnexPool } from './knex/direct-path.js';

export interface MysqlDatabaseOptions {
  readonly url: string;
  /** The database to work in (created when missing) instead of the URL's. */
  readonly schema: string | undefined;
  readonly poolMax: number;
  readonly connectTimeout: number;
  readonly acquireTimeout: number;
  /** knex's `log`, as the other databases get it. */
  readonly knexOptions: Pick<Knex.Config, 'log'>;
}

/** The statements each new connection runs first (see the top of the file). */
const SESSION_SETUP = [
  "set session sql_mode = concat(@@sql_mode, ',ANSI_QUOTES,STRICT_TRANS_TABLES'), time_zone = '+00:00'",
  'set session transaction isolation level read committed',
];

interface Mysql2Connection {
  query(sql: string, callback: (error: Error | null) => void): void;
}

interface Mysql2Field {
  readonly type: string;
  string(): string | null;
}

/**
 * Reads DOUBLE and FLOAT columns with `Number()` of the server's text: mysql2's own parser of a number of up to 17
 * characters adds its digits up by hand and can land one unit in the last place off (`999999999.9999987` read as
 * `…88`), so a float would not read back as it was written. Every other column is mysql2's.
 */
function readExactFloats(field: Mysql2Field, next: () => unknown): unknown {
  if (field.type !== 'DOUBLE' && field.type !== 'FLOAT') return next();
  const text = field.string();
  return text === null ? null : Number(text);
}

/** mysql2's connection settings from the URL: user, password, host, port and database (the path). */
function toConnection(url: string, database: string | undefined): Knex.MySql2ConnectionConfig {
  const parsed = new URL(url.replace(/^mariadb:/, 'mysql:'));
  const named = decodeURIComponent(parsed.pathname.replace(/^\//, ''));
  return {
    host: parsed.hostname || '127.0.0.1',
    port: parsed.port ? Number(parsed.port) : 3306,
    user: decodeURIComponent(parsed.username) || 'root',
    password: decodeURIComponent(parsed.password),
    database: database ?? (named || undefined),
    charset: 'utf8mb4',
    timezone: 'Z',
    dateStrings: ['DATE', 'DATETIME'],
    typeCast: readExactFloats,
  } as unknown as Knex.MySql2ConnectionConfig;
}

function createKnex(options: MysqlDatabaseOptions, database: string | undefined): Knex {
  return knexFactory({
    client: 'mysql2',
    connection: { ...toConnection(options.url, database), connectTimeout: options.connectTimeout },
    acquireConnectionTimeout: options.acquireTimeout,
    pool: {
      min: 0,
      max: options.poolMax,
      afterCreate(connection: Mysql2Connection, done: (error: Error | null, connection: unknown) => void) {
        const next = (index: number): void => {
          if (index === SESSION_SETUP.length) done(null, connection);
          else
            connection.query(SESSION_SETUP[index]!, (error) => {
              if (error) done(error, connection);
              else next(index + 1);
            });
        };
        next(0);
      },
    },
    ...options.knexOptions,
  });
}

/** The database opened: what `openDatabase` answers for it. */
export interface OpenedMysql {
  readonly knex: Knex;
  readonly dialect: Dialect;
  close(): Promise<void>;
  /** The connections of knex's pool, for the statement runner's direct path (`knex/mysql-path.ts`). */
  readonly mysqlPool: KnexPool;
}

export async function openMysqlDatabase(options: MysqlDatabaseOptions): Promise<OpenedMysql> {
  const { schema } = options;
  if (schema !== undefined && !/^[a-z_][a-z0-9_]*$/.test(schema))
    throw new DeclarationError(`Invalid MariaDB database name "${schema}".`);
  // mysql2 is an optional peer dependency: an app on another database need not install it.
  await importOptionalPackage('mysql2', 'A MariaDB or MySQL database', () => import('mysql2'));
  if (schema) {
    const server = createKnex(options, undefined);
    try {
      await server.raw(`create database if not exists ?? character set utf8mb4 collate ${BINARY_COLLATION}`, [schema]);
    } finally {
      await server.destroy();
    }
  }
  const knex = createKnex(options, schema);
  return { knex, dialect: mysqlDialect, close: () => knex.destroy(), mysqlPool: createKnexPool(knex) };
}
