/**
 * An SQLite file while a write with hooks holds its transaction: reads go to the read-only connection (the committed
 * state, without waiting), and the writes with hooks that wait meanwhile share one transaction and its commit, each
 * in its own savepoint. SQLite only: a second connection and savepoints of a shared transaction are how this app uses
 * SQLite's one writer (PostgreSQL runs each transaction on a connection of its own).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiError, defineResource, type Entity, resourceApi, type WriteHooks } from '@resource-api/core';
import { call } from '../helpers.js';

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

async function appOnFile(hooks: WriteHooks): Promise<FastifyInstance> {
  const folder = mkdtempSync(join(tmpdir(), 'shared-commits-'));
  folders.push(folder);
  const Pad = defineResource({ name: 'Pad', fields: { text: { type: 'string' } }, hooks });
  const Entry = defineResource({ name: 'Entry', fields: { item: { type: 'integer' } }, operations: ['getCollection'] });
  const app = Fastify();
  await app.register(resourceApi, { resources: [Pad, Entry], database: `sqlite:${join(folder, 'data.db')}` });
  await app.ready();
  return app;
}

describe('SQLite file: writes with hooks share commits, reads do not wait for them', () => {
  it('answers a read while a write with a hook holds the transaction, with what is committed', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let entered!: () => void;
    const inside = new Promise<void>((resolve) => (entered = resolve));
    const app = await appOnFile({
      afterWrite: async (item: Entity) => {
        if (item.text !== 'held') return;
        entered();
        await gate;
      },
    });
    expect((await call(app, { method: 'POST', url: '/api/pads', payload: { text: 'first' } })).status).toBe(201);
    const held = call(app, { method: 'POST', url: '/api/pads', payload: { text: 'held' } });
    await inside;
    // The transaction is open, its item written but not committed: the read neither waits nor sees it.
    const during = await call(app, { method: 'GET', url: '/api/pads' });
    expect(during.status).toBe(200);
    expect(during.body['hydra:member'].map((pad: Entity) => pad.text)).toEqual(['first']);
    release();
    expect((await held).status).toBe(201);
    expect(
      (await call(app, { method: 'GET', url: '/api/pads' })).body['hydra:member'].map((pad: Entity) => pad.text),
    ).toEqual(['first', 'held']);
    await app.close();
  });

  it('commits concurrent writes with hooks together, each failing one rolled back alone', async () => {
    const app = await appOnFile({
      afterWrite: [
        async (item, context) => void (await context.execute(context.db('entry').insert({ item: item.id }))),
        (item) => {
          if (String(item.text).endsWith('!')) throw new ApiError('CONFLICT', 'No shouting.');
        },
      ],
    });
    let commits = 0;
    const inserts: string[] = [];
    app.resourceApi.database.knex.on('query', (query: { sql: string; __knexUid: string }) => {
      if (/^commit/i.test(query.sql)) commits++;
      if (/^insert/i.test(query.sql)) inserts.push(query.__knexUid);
    });
    const texts = Array.from({ length: 30 }, (_, index) => (index % 3 === 0 ? `loud ${index}!` : `quiet ${index}`));
    const responses = await Promise.all(
      texts.map((text) => call(app, { method: 'POST', url: '/api/pads', payload: { text } })),
    );
    expect(responses.map((response) => response.status)).toEqual(texts.map((text) => (text.endsWith('!') ? 409 : 201)));
    const stored = responses.filter((response) => response.status === 201).map((response) => response.body as Entity);
    const { knex } = app.resourceApi.database;
    expect((await knex('pad').orderBy('id').select('id', 'text')).map((row) => row.text).sort()).toEqual(
      stored.map((pad) => pad.text).sort(),
    );
    expect((await knex('entry').select('item')).map((row) => Number(row.item)).sort((a, b) => a - b)).toEqual(
      stored.map((pad) => pad.id as number).sort((a, b) => a - b),
    );
    // Fewer commits than writes: they were shared.
    expect(commits).toBeLessThanOrEqual(stored.length / 2);
    // The built-in write and the hook's `execute`, inside the shared transaction, ran straight on the connection, not
    // through knex's runner (a prepare per statement): one insert of each per write (kept or rolled back), all there.
    expect(inserts).toHaveLength(texts.length * 2);
    expect(new Set(inserts)).toEqual(new Set(['statement-runner']));
    await app.close();
  });
});
