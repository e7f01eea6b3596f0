/**
 * The database a command works on, and the migrations folder: from the command line, the environment and the config,
 * in that order of precedence. Connection failures are reworded into one line naming the database (password hidden).
 */
import { isAbsolute, resolve } from 'node:path';
import type { Database } from '@resource-api/core';
import { type LoadedConfig, loadConfig } from '../config/load-config.js';
import { CliError } from '../errors.js';

/** The plugin's own default database. */
export const DEFAULT_DATABASE = 'sqlite:var/data.db';

export const DATABASE_OPTIONS = {
  database: {
    type: 'string',
    short: 'd',
    placeholder: '<url>',
    description: `The database URL (default: DATABASE_URL, else the config's "database", else ${DEFAULT_DATABASE}).`,
  },
  schema: {
    type: 'string',
    placeholder: '<name>',
    description: `PostgreSQL only: the schema of the tables (default: the config's "databaseSchema", else the connection's search path).`,
  },
} as const;

export const MIGRATIONS_OPTIONS = {
  dir: {
    type: 'string',
    placeholder: '<folder>',
    description: `The migrations folder (default: the config's "migrations.directory", else "migrations" beside the config file).`,
  },
} as const;

export interface DatabaseTarget {
  readonly url: string;
  readonly schema: string | undefined;
}

export function databaseTarget(
  loaded: LoadedConfig,
  options: { database?: string; schema?: string },
  env: NodeJS.ProcessEnv,
): DatabaseTarget {
  const url = options.database ?? (env.DATABASE_URL?.trim() || undefined) ?? loaded.config.database ?? DEFAULT_DATABASE;
  return { url, schema: options.schema ?? loaded.config.databaseSchema };
}

function migrationsDirectory(loaded: LoadedConfig, options: { dir?: string }, cwd: string, database: string): string {
  if (options.dir !== undefined) return resolve(cwd, options.dir);
  const configured = loaded.config.migrations?.directory;
  const directory = typeof configured === 'function' ? configured(database) : (configured ?? 'migrations');
  return isAbsolute(directory) ? directory : resolve(loaded.directory, directory);
}

/** What every migrations command starts from: the config, the database it targets, and its migrations directory. */
export async function migrationsSetup(
  context: { cwd: string; env: NodeJS.ProcessEnv },
  options: { config?: string; database?: string; schema?: string; dir?: string },
): Promise<{ loaded: LoadedConfig; target: DatabaseTarget; directory: string }> {
  const loaded = await loadConfig(context.cwd, options.config);
  const target = databaseTarget(loaded, options, context.env);
  return { loaded, target, directory: migrationsDirectory(loaded, options, context.cwd, target.url) };
}

/** A database URL without its password, for messages. */
export const redact = (url: string): string => url.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@');

/**
 * Error codes of a database that cannot be reached or refuses us (network, authentication, missing database, SQLite
 * file).
 */
const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'ECONNRESET',
  'EHOSTUNREACH',
  '28P01',
  '28000',
  '3D000',
  '57P03',
  'SQLITE_CANTOPEN',
  'SQLITE_NOTADB',
]);

/**
 * Opens the target database for `work` and closes it after. knex's own warnings (a failed connection attempt, with its
 * stack) go to stderr with `--verbose` only: the failure itself is reported once, as one line. A failure to reach the
 * database becomes `Cannot reach the database <url>: <why>`.
 */
export async function withDatabase<T>(
  target: DatabaseTarget,
  verbose: boolean,
  work: (database: Database) => Promise<T>,
): Promise<T> {
  const say = (message: string) => {
    if (verbose) process.stderr.write(`${message}\n`);
  };
  const { openDatabase } = await import('@resource-api/core');
  try {
    const database = await openDatabase({
      url: target.url,
      ...(target.schema === undefined ? {} : { schema: target.schema }),
      log: { warn: say, error: say, debug: () => {} },
    });
    try {
      return await work(database);
    } finally {
      await database.close();
    }
  } catch (error) {
    if (!isUnreachable(error)) throw error;
    const why = (error as Error).message.split('\n')[0] || (error as { code?: string }).code || 'no answer';
    throw new CliError(`Cannot reach the database ${redact(target.url)}: ${why}`, { cause: error });
  }
}

function isUnreachable(error: unknown): boolean {
  const { code, name, errors } = (error ?? {}) as { code?: unknown; name?: unknown; errors?: unknown[] };
  if (typeof code === 'string' && UNREACHABLE.has(code)) return true;
  // knex gives up waiting for a connection; pg reports a connection attempt that timed out; an AggregateError per
  // address.
  if (name === 'KnexTimeoutError' || /Connection terminated|timeout expired/i.test(String((error as Error)?.message)))
    return true;
  return Array.isArray(errors) && errors.some(isUnreachable);
}
