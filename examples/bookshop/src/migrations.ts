/**
 * The bookshop's migrations, for the database of `DATABASE_URL` (as the server; default the SQLite file under
 * `examples/bookshop/var/`):
 *
 * - `pnpm --filter bookshop migrations:generate [name]` writes a knex migration for what the resources declare and
 *   the migrations do not make yet. It diffs a scratch database built by running the existing migrations (an
 *   in-memory SQLite, or a throw-away schema of the PostgreSQL database), so a development database that schema sync
 *   keeps up to date hides nothing.
 * - `pnpm --filter bookshop migrations:run` runs the pending migrations on the database: what a deployment does
 *   before `NODE_ENV=production pnpm start`, which never changes the schema itself.
 *
 * Migrations are written for one kind of database: `migrations/sqlite/`, `migrations/postgres/` and `migrations/mysql/`
 * (MariaDB and MySQL), chosen by the URL
 * (`MIGRATIONS_DIR` names another folder).
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { generateMigration, openDatabase, runMigrations } from '@resource-api/core';
import { databaseUrl, redact } from './config.js';
import { resources } from './resources/index.js';

/** The kind of database a URL names: the folder of its migrations. */
const kindOf = (url: string): 'postgres' | 'mysql' | 'sqlite' =>
  /^postgres(ql)?:\/\//.test(url) ? 'postgres' : /^(mysql|mariadb):\/\//.test(url) ? 'mysql' : 'sqlite';

/** `MIGRATIONS_DIR`, or `examples/bookshop/migrations/<sqlite|postgres|mysql>` whatever the working directory. */
export function migrationsDirectory(database: string, env: NodeJS.ProcessEnv = process.env): string {
  const custom = env.MIGRATIONS_DIR?.trim();
  if (custom) return resolve(custom);
  return fileURLToPath(new URL(`../migrations/${kindOf(database)}`, import.meta.url));
}

/** Writes the next migration, or returns null when the migrations already make what the resources declare. */
export async function generate(database: string, directory: string, name?: string): Promise<string | null> {
  // A scratch schema (PostgreSQL) or database (MariaDB) on the same server, dropped at the end.
  const kind = kindOf(database);
  const schema = kind === 'sqlite' ? undefined : `migrations_scratch_${randomBytes(6).toString('hex')}`;
  const scratch = await openDatabase({ url: schema ? database : 'sqlite::memory:', ...(schema ? { schema } : {}) });
  try {
    if (existsSync(directory)) await runMigrations({ database: scratch.knex, directory });
    return await generateMigration({ resources, database: scratch.knex, directory, ...(name ? { name } : {}) });
  } finally {
    if (schema)
      await scratch.knex.raw(kind === 'mysql' ? 'DROP DATABASE IF EXISTS ??' : 'DROP SCHEMA IF EXISTS ?? CASCADE', [
        schema,
      ]);
    await scratch.close();
  }
}

async function main(command: string | undefined, name: string | undefined): Promise<void> {
  const database = databaseUrl();
  const directory = migrationsDirectory(database);
  if (command === 'generate') {
    const file = await generate(database, directory, name);
    console.log(
      file
        ? `Wrote ${file}: review it, then run it with migrations:run.`
        : `The migrations in ${directory} already make what the resources declare: nothing to write.`,
    );
  } else if (command === 'run') {
    const ran = await runMigrations({ database, directory });
    console.log(
      ran.length > 0
        ? `Ran ${ran.length} migration(s) on ${redact(database)}: ${ran.join(', ')}.`
        : `${redact(database)} is up to date: no pending migration in ${directory}.`,
    );
  } else {
    throw new Error(`Unknown command "${command ?? ''}": use "generate [name]" or "run".`);
  }
}

// Run only when started as a program (`node dist/migrations.js run`), not when imported by a test.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv[2], process.argv[3]).catch((error: unknown) => {
    console.error(`migrations ${process.argv[2] ?? ''}:`, error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
