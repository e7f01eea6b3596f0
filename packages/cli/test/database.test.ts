/**
 * The database commands of the binary on the bookshop, on SQLite, PostgreSQL and MariaDB (a fresh file, schema or
 * database per test, dropped after): db:sync creates the tables, migrations:generate writes a migration that migrations:run
 * applies and migrations:rollback undoes, the bookshop's config picks its committed migrations by database, and a
 * database that cannot be reached is one line and exit code 1.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { openDatabase } from '@resource-api/core';
import { testDatabases, dropTestSchema } from '@resource-api/core/testing';
import { bookshopDir, ensureCliBuilt, runCli } from './support/cli.js';

const TABLES = [
  'author',
  'book',
  'user',
  'comment',
  'category',
  'brand',
  'product',
  'article',
  'audit_entry',
  'media_object',
];

beforeAll(async () => {
  await ensureCliBuilt();
}, 200_000);

/** A MariaDB URL naming another database of the same server (its path). */
function urlNaming(url: string, database: string): string {
  const named = new URL(url);
  named.pathname = `/${database}`;
  return named.toString();
}

describe.each(testDatabases(inject('postgresUrl'), inject('mariadbUrl')))(
  'the database commands on $name',
  (database) => {
    let folder: string;
    let cleanup: () => Promise<void> = async () => {};

    afterEach(async () => {
      await cleanup();
      cleanup = async () => {};
      rmSync(folder, { recursive: true, force: true });
    });

    /**
     * A database of its own: an SQLite file, or a fresh PostgreSQL schema (MariaDB database), given to the commands as
     * `--schema` (`args`) or in the URL (`url` alone: PostgreSQL's search path, MariaDB's path; made first, as a
     * deployment would).
     */
    async function freshDatabase(): Promise<{ url: string; args: string[]; tables(): Promise<string[]> }> {
      folder = mkdtempSync(join(tmpdir(), 'cli-database-'));
      if (database.name === 'sqlite') {
        const url = `sqlite:${join(folder, 'shop.db')}`;
        return { url, args: ['--database', url], tables: () => tablesOf(url, undefined) };
      }
      const schema = `cli_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
      const admin = await openDatabase({ url: database.url, schema });
      cleanup = async () => {
        await dropTestSchema(admin.knex, schema);
        await admin.close();
      };
      const url =
        database.name === 'mariadb'
          ? urlNaming(database.url, schema)
          : `${database.url}?options=${encodeURIComponent(`-c search_path=${schema}`)}`;
      return {
        url,
        args: ['--database', database.url, '--schema', schema],
        tables: () => tablesOf(database.url, schema),
      };
    }

    /** The scratch schemas left in the PostgreSQL database, or databases on the MariaDB server (generate drops its own). */
    async function scratchSchemas(): Promise<string[]> {
      const opened = await openDatabase({ url: database.url });
      try {
        if (database.name === 'mariadb') {
          const [rows] = (await opened.knex.raw(
            "SELECT schema_name AS name FROM information_schema.schemata WHERE schema_name LIKE 'resource\\_api\\_scratch\\_%'",
          )) as [{ name: string }[]];
          return rows.map((row) => row.name);
        }
        const { rows } = (await opened.knex.raw(
          "SELECT nspname FROM pg_namespace WHERE nspname LIKE 'resource\\_api\\_scratch\\_%'",
        )) as { rows: { nspname: string }[] };
        return rows.map((row) => row.nspname);
      } finally {
        await opened.close();
      }
    }

    /** Which of the bookshop's tables the database holds. */
    async function tablesOf(url: string, schema: string | undefined): Promise<string[]> {
      const opened = await openDatabase({ url, ...(schema ? { schema } : {}) });
      try {
        const present: string[] = [];
        for (const table of TABLES) if (await opened.knex.schema.hasTable(table)) present.push(table);
        return present;
      } finally {
        await opened.close();
      }
    }

    it('db:sync creates every table, and running it again changes nothing', async () => {
      const target = await freshDatabase();
      expect(await target.tables()).toEqual([]);
      const run = await runCli(['db:sync', ...target.args]);
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(
        /^Synced .*: tables author, book, user, comment, category, brand, product, article, audit_entry, media_object and their columns and indexes are there\.\n$/,
      );
      expect(await target.tables()).toEqual(TABLES);
      expect((await runCli(['db:sync', ...target.args])).code).toBe(0);
    });

    it('migrations:generate writes a migration, migrations:run applies it, migrations:rollback undoes it', async () => {
      const target = await freshDatabase();
      const env = { DATABASE_URL: target.url };
      const dir = join(folder, 'migrations');

      const generated = await runCli(['migrations:generate', 'initial', '--dir', dir], { env });
      expect(generated.stderr).toBe('');
      expect(generated.code).toBe(0);
      const files = readdirSync(dir);
      expect(files).toEqual([expect.stringMatching(/^\d{14}_initial\.mjs$/)]);
      expect(generated.stdout).toBe(
        `Wrote ${join(dir, files[0]!)}: review it, then run it with "resource-api migrations:run".\n`,
      );
      expect(readFileSync(join(dir, files[0]!), 'utf8')).toMatch(/createTable\('book'/);
      // The scratch database is made from the migrations, not from the target: it is still empty; on PostgreSQL and
      // MariaDB the scratch schema (database) is gone.
      expect(await target.tables()).toEqual([]);
      if (database.name !== 'sqlite') expect(await scratchSchemas()).toEqual([]);

      const ran = await runCli(['migrations:run', '--dir', dir], { env });
      expect(ran).toMatchObject({ code: 0, stderr: '' });
      expect(ran.stdout).toMatch(new RegExp(`^Ran 1 migration\\(s\\) on .*: ${files[0]}\\.\\n$`));
      expect(await target.tables()).toEqual(TABLES);
      expect((await runCli(['migrations:run', '--dir', dir], { env })).stdout).toContain(
        'is up to date: no pending migration',
      );

      for (const compare of [[], ['--diff-database']]) {
        const again = await runCli(['migrations:generate', '--dir', dir, ...compare], { env });
        expect(again).toEqual({
          code: 0,
          stdout: `Nothing to write: the migrations in ${dir} already make what the resources declare.\n`,
          stderr: '',
        });
      }

      const undone = await runCli(['migrations:rollback', '--dir', dir], { env });
      expect(undone).toMatchObject({ code: 0, stderr: '' });
      expect(undone.stdout).toMatch(new RegExp(`^Rolled back 1 migration\\(s\\) on .*: ${files[0]}\\.\\n$`));
      expect(await target.tables()).toEqual([]);
      expect((await runCli(['migrations:rollback', '--dir', dir], { env })).stdout).toMatch(
        /^Nothing to roll back on /,
      );
    });

    it('migrations:generate --diff-database refuses while migrations are pending (exit 1)', async () => {
      const target = await freshDatabase();
      const dir = join(folder, 'migrations');
      expect((await runCli(['migrations:generate', '--dir', dir, ...target.args])).code).toBe(0);
      const refused = await runCli(['migrations:generate', '--dir', dir, '--diff-database', ...target.args]);
      expect(refused.code).toBe(1);
      expect(refused.stdout).toBe('');
      expect(refused.stderr).toMatch(
        /^resource-api migrations:generate: 1 migration\(s\) of .* have not run on this database .*\n$/,
      );
    });

    it("runs the bookshop's committed migrations of this kind of database by default (its config's migrations.directory)", async () => {
      const target = await freshDatabase();
      // MariaDB's are the bookshop's `migrations/mysql/`.
      const committed = readdirSync(
        join(bookshopDir, 'migrations', database.name === 'mariadb' ? 'mysql' : database.name),
      );
      const ran = await runCli(['migrations:run'], { env: { DATABASE_URL: target.url } });
      expect(ran).toMatchObject({ code: 0, stderr: '' });
      expect(ran.stdout).toContain(`: ${committed.join(', ')}.`);
      expect(await target.tables()).toEqual(TABLES);
    });
  },
);

describe('a database that cannot be reached', () => {
  // migrations:run takes the bookshop's committed migrations; migrations:generate writes (if it got that far) aside.
  const scratch = mkdtempSync(join(tmpdir(), 'cli-unreachable-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it.each([
    ['db:sync'],
    ['migrations:run'],
    ['migrations:generate', '--dir', scratch],
    ['migrations:generate', '--diff-database', '--dir', scratch],
  ])('%s: exit 1, one line naming it (password hidden), no stack', async (command, ...options) => {
    const run = await runCli([command, '--database', 'postgres://shop:secret@127.0.0.1:1/shop', ...options]);
    expect(run).toEqual({
      code: 1,
      stdout: '',
      stderr: `resource-api ${command}: Cannot reach the database postgres://shop:***@127.0.0.1:1/shop: connect ECONNREFUSED 127.0.0.1:1\n`,
    });
  });

  it("--verbose adds the stack trace and the driver's warnings", async () => {
    const run = await runCli(['db:sync', '--verbose', '--database', 'postgres://shop@127.0.0.1:1/shop']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      '\nresource-api db:sync: Cannot reach the database postgres://shop@127.0.0.1:1/shop: connect ECONNREFUSED 127.0.0.1:1\nCliError: ',
    );
    expect(run.stderr).toMatch(/\n {4}at /);
    // The driver's own warnings are shown too.
    expect(run.stderr).toMatch(/^Acquire connection error: /);
  });

  it('an unsupported URL is one line too', async () => {
    const run = await runCli(['db:sync', '--database', 'mssql://shop@127.0.0.1/shop']);
    expect(run).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'resource-api db:sync: Database URL "mssql://127.0.0.1/shop" is not supported: use "postgres://…", "mysql://…" (or "mariadb://…"), "sqlite:/path/file.db" or "sqlite::memory:".\n',
    });
  });
});
