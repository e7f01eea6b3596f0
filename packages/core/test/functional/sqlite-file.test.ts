/**
 * How the plugin sets up a SQLite file it opens (`state/database.ts`): a new file gets 16 KiB pages and WAL; a file
 * that already has pages keeps its page size, and its rows. SQLite only: page size and journal mode are properties
 * of SQLite's file format (PostgreSQL's page size is fixed when the server is built).
 */
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import knexFactory, { type Knex } from 'knex';
import { afterEach, describe, expect, it } from 'vitest';
import { defineResource, resourceApi } from '@resource-api/core';
import { call } from '../helpers.js';

const Note = defineResource({ name: 'Note', fields: { text: { type: 'string' } } });

/** A connection of its own to the file, through knex's better-sqlite3 client (no pragma of the plugin's). */
const openFile = (filename: string): Knex =>
  knexFactory({ client: 'better-sqlite3', connection: { filename }, useNullAsDefault: true });

/** The file's page size and journal mode. */
async function fileSettings(filename: string): Promise<{ pageSize: number; journalMode: string }> {
  const db = openFile(filename);
  try {
    const [{ page_size: pageSize }] = (await db.raw('pragma page_size')) as [{ page_size: number }];
    const [{ journal_mode: journalMode }] = (await db.raw('pragma journal_mode')) as [{ journal_mode: string }];
    return { pageSize, journalMode };
  } finally {
    await db.destroy();
  }
}

async function appOn(filename: string): Promise<FastifyInstance> {
  const app = Fastify();
  await app.register(resourceApi, { resources: [Note], database: `sqlite:${filename}` });
  await app.ready();
  return app;
}

describe('a SQLite file opened by the plugin', () => {
  const folders: string[] = [];
  const newFile = (): string => {
    const folder = mkdtempSync(join(tmpdir(), 'sqlite-file-'));
    folders.push(folder);
    return join(folder, 'data.db');
  };
  afterEach(() => {
    for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
  });

  it('is created with 16 KiB pages, in WAL mode, read through a 64 MiB page cache, and serves what it stores', async () => {
    const filename = newFile();
    const app = await appOn(filename);
    const created = await call(app, { method: 'POST', url: '/api/notes', payload: { text: 'first' } });
    expect(created.status).toBe(201);
    // The connection's page cache is 64 MiB (a per-connection setting, so read through the app's own connection).
    expect(await app.resourceApi.database.knex.raw('pragma cache_size')).toEqual([{ cache_size: -65_536 }]);
    await app.close();

    expect(await fileSettings(filename)).toEqual({ pageSize: 16_384, journalMode: 'wal' });
    const reopened = await appOn(filename);
    expect((await call(reopened, { method: 'GET', url: created.body['@id'] as string })).body.text).toBe('first');
    await reopened.close();
  });

  it("keeps each write's savepoint journal in memory, and commits concurrent large updates whole", async () => {
    const filename = newFile();
    const app = await appOn(filename);
    // Set on the connection that writes (a per-connection setting): the journal of a write's SAVEPOINT never becomes
    // a temporary file (state/database.ts).
    expect(await app.resourceApi.database.knex.raw('pragma temp_store')).toEqual([{ temp_store: 2 }]);
    const ids: string[] = [];
    for (let index = 0; index < 12; index++) {
      const created = await call(app, { method: 'POST', url: '/api/notes', payload: { text: 'a'.repeat(40_000) } });
      expect(created.status).toBe(201);
      ids.push(created.body['@id'] as string);
    }
    // Sent together, they share commits: each rewrites 40 KB held in pages that existed before its savepoint, so
    // the savepoints' journal passes SQLite's 64 KiB at which it would have moved to a file.
    const updated = await Promise.all(
      ids.map((id, index) =>
        call(app, {
          method: 'PATCH',
          url: id,
          headers: { 'content-type': 'application/merge-patch+json' },
          payload: { text: String(index).repeat(40_000) },
        }),
      ),
    );
    expect(updated.map((response) => response.status)).toEqual(ids.map(() => 200));
    await app.close();

    const reopened = await appOn(filename);
    for (const [index, id] of ids.entries())
      expect((await call(reopened, { method: 'GET', url: id })).body.text).toBe(String(index).repeat(40_000));
    await reopened.close();
  });

  it('holds the read lock for its reads only a moment: another connection checkpoints and empties the WAL after it', async () => {
    const filename = newFile();
    const app = await appOn(filename);
    const other = openFile(filename);
    try {
      await other.raw('pragma busy_timeout = 0');
      const created = await call(app, { method: 'POST', url: '/api/notes', payload: { text: 'in the WAL' } });
      expect(created.status).toBe(201);
      /** SQLite's answer to a checkpoint that also empties the WAL: busy is 1 while a reader keeps it from finishing. */
      const truncate = async () =>
        ((await other.raw('pragma wal_checkpoint(TRUNCATE)')) as [{ busy: number; log: number }])[0];
      // A read makes the holder take the lock (`state/knex/held-read-lock.ts`): the WAL cannot be emptied meanwhile.
      expect((await call(app, { method: 'GET', url: created.body['@id'] as string })).status).toBe(200);
      expect((await truncate()).busy).toBe(1);
      // It lets go after at most 100 ms without a write, and the checkpoint goes through.
      await new Promise((resolve) => setTimeout(resolve, 150));
      expect(await truncate()).toMatchObject({ busy: 0, log: 0 });
      // A write of the app's lets go at once.
      expect((await call(app, { method: 'GET', url: created.body['@id'] as string })).status).toBe(200);
      expect((await call(app, { method: 'POST', url: '/api/notes', payload: { text: 'second' } })).status).toBe(201);
      expect(await truncate()).toMatchObject({ busy: 0, log: 0 });
      // So does knex asking for the main connection (a query of the app's own on `database.knex`).
      expect((await call(app, { method: 'POST', url: '/api/notes', payload: { text: 'third' } })).status).toBe(201);
      expect((await call(app, { method: 'GET', url: created.body['@id'] as string })).status).toBe(200);
      expect((await truncate()).busy).toBe(1);
      await app.resourceApi.database.knex('note').insert({ text: 'through knex' });
      expect(await truncate()).toMatchObject({ busy: 0, log: 0 });
      // Every read still sees the last commit, the other connection's too.
      await other('note').insert({ text: 'from the other connection' });
      const list = await call(app, { method: 'GET', url: '/api/notes' });
      expect((list.body['hydra:member'] as { text: string }[]).map((note) => note.text)).toEqual([
        'in the WAL',
        'second',
        'third',
        'through knex',
        'from the other connection',
      ]);
    } finally {
      await other.destroy();
      await app.close();
    }
  });

  it("records the file's size in the WAL at open, changing nothing else (reads then skip an fstat each)", async () => {
    const filename = newFile();
    // A file that exists, with a user_version of its own and no WAL (the last connection removed it).
    const before = openFile(filename);
    await before.raw('create table kept (id integer primary key)');
    await before.raw('pragma user_version = 42');
    await before.destroy();
    expect(existsSync(`${filename}-wal`)).toBe(false);

    const app = await appOn(filename);
    // One commit at open: the WAL holds its header (32 bytes) and at least one frame (24 bytes and a page).
    expect(statSync(`${filename}-wal`).size).toBeGreaterThan(32 + 24);
    expect(await app.resourceApi.database.knex.raw('pragma user_version')).toEqual([{ user_version: 42 }]);
    expect((await call(app, { method: 'GET', url: '/api/notes' })).status).toBe(200);
    await app.close();

    const after = openFile(filename);
    expect(await after.raw('pragma user_version')).toEqual([{ user_version: 42 }]);
    expect(await after.raw("select name from sqlite_master where name = 'kept'")).toEqual([{ name: 'kept' }]);
    await after.destroy();
  });

  it("opens a file whose write lock another connection holds, without the WAL's size, and serves it", async () => {
    const filename = newFile();
    await (await appOn(filename)).close();
    const other = openFile(filename);
    const locked = await other.transaction();
    await locked.raw("insert into note (text) values ('from another connection')");
    // The commit at open waits for the lock up to better-sqlite3's busy timeout (5 s), then gives up: the app opens.
    const app = await appOn(filename);
    const before = await call(app, { method: 'GET', url: '/api/notes' });
    expect(before.status).toBe(200);
    expect(before.body['hydra:totalItems']).toBe(0);
    await locked.commit();
    expect((await call(app, { method: 'GET', url: '/api/notes' })).body['hydra:totalItems']).toBe(1);
    await app.close();
    await other.destroy();
  }, 20_000);

  it('keeps the page size of a file that has pages already, and its rows', async () => {
    const filename = newFile();
    const existing = openFile(filename);
    await existing.raw('pragma page_size = 4096');
    await existing.raw('create table note (id integer primary key autoincrement, text varchar(255))');
    await existing.raw("insert into note (text) values ('kept')");
    await existing.destroy();

    const app = await appOn(filename);
    const list = await call(app, { method: 'GET', url: '/api/notes' });
    expect(list.body['hydra:totalItems']).toBe(1);
    expect((list.body['hydra:member'] as { text: string }[])[0]!.text).toBe('kept');
    expect((await call(app, { method: 'POST', url: '/api/notes', payload: { text: 'added' } })).status).toBe(201);
    await app.close();

    expect(await fileSettings(filename)).toEqual({ pageSize: 4096, journalMode: 'wal' });
  });
});
