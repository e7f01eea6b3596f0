/**
 * What a read sees when reads and writes overlap: reads and writes fired together all succeed, a write is seen by
 * every request after it (whether it went through a group commit, alone, or in a knex transaction), and a commit made
 * by another connection to a SQLite file is seen by the very next request, even one made in the same turn of the event
 * loop. (Sharing one read transaction among the reads of a turn, which saved about 9 % of an item GET's CPU, failed
 * the last of these, so it was not done: see docs/performance.md.)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import knexFactory from 'knex';
import { describe, expect, inject, it } from 'vitest';
import { defineResource, resourceApi } from '@resource-api/core';
import { buildTestApp, testDatabases } from '@resource-api/core/testing';
import { call } from '../helpers.js';

const Novel = defineResource({ name: 'Novel', fields: { title: { type: 'string' }, pages: { type: 'integer' } } });
const MERGE_PATCH = { 'content-type': 'application/merge-patch+json' };

describe.each(testDatabases(inject('postgresUrl'), inject('mariadbUrl')))(
  'reads and writes fired together on $name',
  (database) => {
    it('answers every one, and every read that follows a write sees it', async () => {
      const app = await buildTestApp({ database, resources: [Novel] });
      for (const title of ['One', 'Two', 'Three'])
        expect((await call(app, { method: 'POST', url: '/api/novels', payload: { title, pages: 100 } })).status).toBe(
          201,
        );
      const etag = (await call(app, { method: 'GET', url: '/api/novels/1' })).headers.etag as string;

      const responses = await Promise.all([
        call(app, { method: 'GET', url: '/api/novels' }),
        call(app, { method: 'GET', url: '/api/novels/1' }),
        // If-Match: read, compare and write in a knex transaction, on the connection the reads share.
        call(app, {
          method: 'PATCH',
          url: '/api/novels/1',
          headers: { ...MERGE_PATCH, 'if-match': etag },
          payload: JSON.stringify({ pages: 111 }),
        }),
        call(app, { method: 'GET', url: '/api/novels/2' }),
        // One statement each: committed together, at the end of the turn.
        call(app, { method: 'POST', url: '/api/novels', payload: { title: 'Four', pages: 400 } }),
        call(app, {
          method: 'PATCH',
          url: '/api/novels/2',
          headers: MERGE_PATCH,
          payload: JSON.stringify({ pages: 222 }),
        }),
        call(app, { method: 'GET', url: '/api/novels?itemsPerPage=30' }),
        call(app, { method: 'GET', url: '/api/novels/3' }),
      ]);
      expect(responses.map((response) => response.status)).toEqual([200, 200, 200, 200, 201, 200, 200, 200]);
      expect(responses[2]!.body.pages).toBe(111);
      expect(responses[5]!.body.pages).toBe(222);

      const list = await call(app, { method: 'GET', url: '/api/novels?itemsPerPage=30' });
      expect(list.body['hydra:totalItems']).toBe(4);
      expect((list.body['hydra:member'] as { pages: number }[]).map((novel) => novel.pages)).toEqual([
        111, 222, 100, 400,
      ]);
      // The ETag the PATCH answered with is the one a read gives now.
      expect((await call(app, { method: 'GET', url: '/api/novels/1' })).headers.etag).toBe(responses[2]!.headers.etag);
      await app.close();
    });
  },
);

describe('a SQLite file written by another connection', () => {
  it('shows the other connection’s commit to the next request', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'read-visibility-'));
    const filename = join(folder, 'data.db');
    const app = Fastify();
    await app.register(resourceApi, { resources: [Novel], database: `sqlite:${filename}` });
    await app.ready();
    const other = knexFactory({ client: 'better-sqlite3', connection: { filename }, useNullAsDefault: true });
    try {
      expect((await call(app, { method: 'GET', url: '/api/novels' })).body['hydra:totalItems']).toBe(0);
      await other('novel').insert({ title: 'Written elsewhere', pages: 7 });
      const list = await call(app, { method: 'GET', url: '/api/novels' });
      expect(list.body['hydra:totalItems']).toBe(1);
      expect((list.body['hydra:member'] as { title: string }[])[0]!.title).toBe('Written elsewhere');

      // And the other way round: what the app wrote, the other connection reads at once.
      expect(
        (await call(app, { method: 'POST', url: '/api/novels', payload: { title: 'Written here', pages: 8 } })).status,
      ).toBe(201);
      expect(await other('novel').pluck('title')).toEqual(['Written elsewhere', 'Written here']);
    } finally {
      await other.destroy();
      await app.close();
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
