/**
 * Lost-update protection under concurrency: writers holding the same ETag, fired at once or held together after their
 * preconditions passed (the barrier of fixtures.ts, so that every one of them has checked the same state), on one app
 * over SQLite and PostgreSQL, and on two app instances over one PostgreSQL schema: exactly one write wins, the others
 * get 412 and change nothing. Without If-Match the same race loses an update: the check is what prevents it.
 */
import { randomBytes } from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { resourceApi } from '@resource-api/core';
import { testDatabases, dropTestSchema } from '@resource-api/core/testing';
import { call, useApp } from '../helpers.js';
import { createBarrier, gate, MERGE_PATCH, resources } from './fixtures.js';

afterEach(() => {
  gate.barrier = null;
});

const patch = (app: FastifyInstance, pages: number, ifMatch?: string) =>
  call(app, {
    method: 'PATCH',
    url: '/api/novels/1',
    headers: { ...MERGE_PATCH, ...(ifMatch ? { 'if-match': ifMatch } : {}) },
    payload: { pages },
  });

let nextPages = 1000;

/**
 * PATCHes fired together, each with pages no writer has used yet (a write that changes nothing keeps the ETag current,
 * and would rightly let the next one through). The statuses, sorted, and the pages of the writers that won.
 */
async function race(apps: readonly FastifyInstance[], ifMatch: string | undefined) {
  const responses = await Promise.all(apps.map((app) => patch(app, nextPages++, ifMatch)));
  const winners = responses.filter((r) => r.status === 200).map((r) => r.body.pages as number);
  return { statuses: responses.map((r) => r.status).sort(), winners };
}

describe.each(testDatabases(inject('postgresUrl'), inject('mariadbUrl')))(
  'concurrent writers with one ETag on $name',
  (database) => {
    const app = useApp(database, { resources });
    const stored = async () => (await app().resourceApi.database.knex('novel').where('id', 1).first()).pages as number;

    async function seedAndTag(): Promise<string> {
      expect(
        (
          await call(app(), {
            method: 'POST',
            url: '/api/novels',
            payload: { title: 'The Word for World Is Forest', pages: 189 },
          })
        ).status,
      ).toBe(201);
      return (await call(app(), { method: 'GET', url: '/api/novels/1' })).headers.etag as string;
    }

    it('lets exactly one of two PATCHes fired at once win; the other gets 412', async () => {
      const etag = await seedAndTag();
      const { statuses, winners } = await race([app(), app()], etag);
      expect(statuses).toEqual([200, 412]);
      expect(await stored()).toBe(winners[0]);
    });

    it('lets exactly one of a PATCH and a DELETE fired at once win', async () => {
      const etag = await seedAndTag();
      const [patched, deleted] = await Promise.all([
        patch(app(), 600, etag),
        call(app(), { method: 'DELETE', url: '/api/novels/1', headers: { 'if-match': etag } }),
      ]);
      expect([patched.status, deleted.status].filter((s) => s === 200 || s === 204)).toHaveLength(1);
      // The loser gets 412, or 404 when the item was already deleted before the PATCH read it.
      expect([patched.status, deleted.status].filter((s) => s === 412 || s === 404)).toHaveLength(1);
      const row = await app().resourceApi.database.knex('novel').where('id', 1).first();
      if (deleted.status === 204) expect(row).toBeUndefined();
      else expect(row.pages).toBe(600);
    });

    it('lets exactly one of five writers that all passed the check win: the database orders them', async () => {
      const etag = await seedAndTag();
      gate.barrier = createBarrier(5);
      const { statuses, winners } = await race([app(), app(), app(), app(), app()], etag);
      expect(statuses).toEqual([200, 412, 412, 412, 412]);
      expect(await stored()).toBe(winners[0]);
    });

    it('loses an update in the same race without If-Match: every writer "wins"', async () => {
      await seedAndTag();
      gate.barrier = createBarrier(2);
      const { statuses } = await race([app(), app()], undefined);
      expect(statuses).toEqual([200, 200]);
    });
  },
);

describe.each(testDatabases(inject('postgresUrl'), inject('mariadbUrl')).filter((d) => d.name === 'postgres'))(
  'two app instances on one $name schema',
  (database) => {
    const schema = `test_${randomBytes(6).toString('hex')}`;
    let apps: FastifyInstance[] = [];

    async function instance(): Promise<FastifyInstance> {
      const app = Fastify();
      await app.register(resourceApi, { resources, database: database.url, databaseSchema: schema, graphql: false });
      await app.ready();
      return app;
    }

    afterEach(async () => {
      try {
        if (apps[0] && schema) await dropTestSchema(apps[0].resourceApi.database.knex, schema);
      } finally {
        await Promise.all(apps.map((app) => app.close()));
        apps = [];
      }
    });

    it('lets exactly one writer win across instances, fired at once or held after the check', async () => {
      apps = [await instance(), await instance()];
      const [first, second] = apps as [FastifyInstance, FastifyInstance];
      expect(
        (
          await call(first, {
            method: 'POST',
            url: '/api/novels',
            payload: { title: 'Always Coming Home', pages: 523 },
          })
        ).status,
      ).toBe(201);
      // Each instance reads the same representation, so the same tag.
      const etag = (await call(second, { method: 'GET', url: '/api/novels/1' })).headers.etag as string;
      expect((await call(first, { method: 'GET', url: '/api/novels/1' })).headers.etag).toBe(etag);

      const fired = await race([first, second], etag);
      expect(fired.statuses).toEqual([200, 412]);

      const next = (await call(first, { method: 'GET', url: '/api/novels/1' })).headers.etag as string;
      gate.barrier = createBarrier(4);
      const held = await race([first, second, first, second], next);
      expect(held.statuses).toEqual([200, 412, 412, 412]);
      const row = await first.resourceApi.database.knex('novel').where('id', 1).first();
      expect(row.pages).toBe(held.winners[0]);
    });
  },
);
