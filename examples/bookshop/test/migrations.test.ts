/**
 * The bookshop's migration commands as a deployment runs them: the compiled `dist/migrations.js` in a child process on
 * a fresh database, then the compiled server with `NODE_ENV=production`, which refuses the database until the
 * migrations ran and serves it after. Also: the committed migrations make exactly what the resources declare.
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { openDatabase } from '@resource-api/core';
import { testDatabases, dropTestSchema } from '@resource-api/core/testing';
import { ensureBuilt, freePort, mainJs, root, startNode } from './compiled.js';

const migrationsJs = join(root, 'examples/bookshop/dist/migrations.js');
const JWT_SECRET = 'a-migrations-test-secret-that-is-long-enough-0123456789';

/** `node dist/migrations.js <args>` with exactly `env` (plus PATH); its output, and its exit code. */
async function migrations(args: string[], env: Record<string, string>): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [migrationsJs, ...args], {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', ...env },
      timeout: 60_000,
    });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, output: (failed.stdout ?? '') + (failed.stderr ?? '') };
  }
}

describe.each(testDatabases(inject('postgresUrl'), inject('mariadbUrl')))(
  'the migration commands on $name',
  (database) => {
    // MariaDB's migrations are the app's `migrations/mysql/` (they serve MySQL too).
    const committed = join(root, 'examples/bookshop/migrations', database.name === 'mariadb' ? 'mysql' : database.name);
    let folder: string;
    let cleanup: () => Promise<void> = async () => {};

    beforeAll(async () => {
      await ensureBuilt();
    }, 150_000);

    afterEach(async () => {
      await cleanup();
      rmSync(folder, { recursive: true, force: true });
    });

    /**
     * A database of its own: an SQLite file, a fresh PostgreSQL schema named in the URL's search path, or a fresh
     * MariaDB database named in the URL's path.
     */
    async function freshDatabaseUrl(): Promise<string> {
      folder = mkdtempSync(join(tmpdir(), 'bookshop-migrations-'));
      if (database.name === 'sqlite') return `sqlite:${join(folder, 'shop.db')}`;
      const schema = `bookshop_mig_${Date.now().toString(36)}_${process.pid}`;
      const admin = await openDatabase({ url: database.url, schema });
      cleanup = async () => {
        await dropTestSchema(admin.knex, schema);
        await admin.close();
      };
      if (database.name === 'mariadb') {
        const url = new URL(database.url);
        url.pathname = `/${schema}`;
        return url.toString();
      }
      return `${database.url}?options=${encodeURIComponent(`-c search_path=${schema}`)}`;
    }

    it('runs the committed migrations, after which the production server starts on the database it refused before', async () => {
      const DATABASE_URL = await freshDatabaseUrl();
      const port = await freePort();
      const production = { NODE_ENV: 'production', HOST: '127.0.0.1', PORT: String(port), DATABASE_URL, JWT_SECRET };

      const refused = startNode(mainJs, production);
      expect(await refused.exit).toBe(1);
      expect(refused.output()).toMatch(
        /The database lacks what the resources need \(create table author; create table book; .*\).*run the migrations/,
      );

      const files = readdirSync(committed);
      // The initial schema, then Article's published/publishedAt and the AuditEntry table (the "Beyond CRUD" section),
      // then the framework's refresh tokens and the user's "tokens valid after" and "provisioned at" columns, then the
      // unique index on lower(email) (e-mail addresses unique regardless of letter case), then Article's createdAt and
      // updatedAt (the "Timestamps" section), the MediaObject table and Book's cover, and Comment's deletedAt (its DELETE
      // is a soft delete). MariaDB came after all of them: its one migration makes the schema as it is today.
      const names =
        database.name === 'mariadb'
          ? ['initial']
          : [
              'initial',
              'publish_and_audit',
              'revocable_tokens',
              'case_insensitive_email',
              'article_timestamps',
              'media_objects',
              'soft_delete_comments',
            ];
      expect(files).toEqual(names.map((name) => expect.stringMatching(new RegExp(`^\\d{14}_${name}\\.mjs$`))));
      const ran = await migrations(['run'], { DATABASE_URL });
      expect(ran).toEqual({ code: 0, output: expect.stringContaining(`Ran ${names.length} migration(s) on `) });
      expect(ran.output).toContain(`: ${files.join(', ')}.`);
      expect((await migrations(['run'], { DATABASE_URL })).output).toContain('is up to date: no pending migration');

      const server = startNode(mainJs, production);
      try {
        const base = `http://127.0.0.1:${port}`;
        for (let tries = 0; ; tries++) {
          if (server.child.exitCode !== null)
            throw new Error(`The server exited with ${server.child.exitCode}:\n${server.output()}`);
          try {
            await fetch(`${base}/api`);
            break;
          } catch {
            if (tries > 200) throw new Error(`The server did not answer:\n${server.output()}`);
            await new Promise((resolve) => setTimeout(resolve, 100));
          }
        }
        const created = await fetch(`${base}/api/authors`, {
          method: 'POST',
          headers: { 'content-type': 'application/ld+json' },
          body: JSON.stringify({ name: 'Octavia E. Butler' }),
        });
        expect(created.status).toBe(201);
        const book = await fetch(`${base}/api/books`, {
          method: 'POST',
          headers: { 'content-type': 'application/ld+json' },
          body: JSON.stringify({ title: 'Kindred', author: '/api/authors/1' }),
        });
        expect(book.status).toBe(201);
        // The foreign key made by the migration: a book of an author that does not exist is a 400, and nothing is written.
        const orphan = await fetch(`${base}/api/books`, {
          method: 'POST',
          headers: { 'content-type': 'application/ld+json' },
          body: JSON.stringify({ title: 'Lost', author: '/api/authors/9' }),
        });
        expect(orphan.status).toBe(400);
        const books = (await (await fetch(`${base}/api/books`)).json()) as { 'hydra:totalItems': number };
        expect(books['hydra:totalItems']).toBe(1);
      } finally {
        server.child.kill('SIGTERM');
        await server.exit;
      }
    });

    it('generates nothing while the committed migrations make what the resources declare', async () => {
      const DATABASE_URL = await freshDatabaseUrl();
      // A copy of the committed folder, so a difference shows as a new file here and never lands in the repository.
      const MIGRATIONS_DIR = join(folder, 'migrations');
      cpSync(committed, MIGRATIONS_DIR, { recursive: true });
      const generated = await migrations(['generate'], { DATABASE_URL, MIGRATIONS_DIR });
      expect(generated).toEqual({
        code: 0,
        output: `The migrations in ${MIGRATIONS_DIR} already make what the resources declare: nothing to write.\n`,
      });
      expect(readdirSync(MIGRATIONS_DIR)).toEqual(readdirSync(committed));
      expect(await migrations(['drop'], { DATABASE_URL, MIGRATIONS_DIR })).toEqual({
        code: 1,
        output: 'migrations drop: Unknown command "drop": use "generate [name]" or "run".\n',
      });
    });
  },
);
