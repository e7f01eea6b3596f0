/**
 * Runs the migration files of a directory with knex's own migrator (`knex.migrate.latest` / `rollback`), which keeps
 * the names of the files it ran in the `knex_migrations` table and runs each file once, in file-name order.
 */
import { existsSync } from 'node:fs';
import type { Knex } from 'knex';
import { SchemaNotMigratedError } from '../../errors.js';
import { type Database, openDatabase } from '../database.js';

/** The database and the folder that `runMigrations` and `rollbackMigrations` work on. */
export interface MigrationOptions {
  /** The database URL (`sqlite:/path/file.db`, `postgres://…`) or a knex instance, as the plugin takes it. */
  readonly database: string | Knex;
  /** PostgreSQL only: the schema the tables are in (created when missing); default: the connection's search path. */
  readonly databaseSchema?: string;
  /** The folder of the migration files (`<YYYYMMDDHHmmss>_<name>.mjs`). */
  readonly directory: string;
}

/** knex's migrator settings: the folder, and the files it loads (ES modules included, no TypeScript). */
export const createMigratorConfig = (directory: string): Knex.MigratorConfig => ({
  directory,
  loadExtensions: ['.mjs', '.js', '.cjs'],
});

/** Opens the database of the options (and closes it after `work`, when it was opened here). */
export async function runWithDatabase<T>(
  options: Omit<MigrationOptions, 'directory'>,
  work: (database: Database) => Promise<T>,
): Promise<T> {
  const database = await openDatabase({
    url: options.database,
    ...(options.databaseSchema === undefined ? {} : { schema: options.databaseSchema }),
  });
  try {
    return await work(database);
  } finally {
    await database.close();
  }
}

/** The files of the directory that have not run on the database. */
export async function listPendingMigrations(knex: Knex, directory: string): Promise<string[]> {
  if (!existsSync(directory)) return [];
  const [, pending] = (await knex.migrate.list(createMigratorConfig(directory))) as [unknown[], { file: string }[]];
  return pending.map((migration) => migration.file);
}

function assertDirectory(directory: string): void {
  if (!existsSync(directory))
    throw new SchemaNotMigratedError(
      `There is no migrations folder at ${directory}: generate the migrations first (generateMigration).`,
    );
}

/**
 * Runs the pending migrations, in one batch; returns the names of the files it ran (none when the database is current).
 *
 * @example
 * await runMigrations({ database: process.env.DATABASE_URL!, directory: 'migrations' });
 */
export async function runMigrations(options: MigrationOptions): Promise<string[]> {
  assertDirectory(options.directory);
  return runWithDatabase(options, async ({ knex }) => {
    const [, ran] = (await knex.migrate.latest(createMigratorConfig(options.directory))) as [number, string[]];
    return ran;
  });
}

/**
 * Undoes the last batch of migrations (every batch with `all`), each file's `down` in reverse order; returns the
 * names of the files undone.
 *
 * @example
 * await rollbackMigrations({ database: 'sqlite:var/data.db', directory: 'migrations' });
 */
export async function rollbackMigrations(options: MigrationOptions & { readonly all?: boolean }): Promise<string[]> {
  assertDirectory(options.directory);
  return runWithDatabase(options, async ({ knex }) => {
    const [, undone] = (await knex.migrate.rollback(createMigratorConfig(options.directory), options.all ?? false)) as [
      number,
      string[],
    ];
    return undone;
  });
}
