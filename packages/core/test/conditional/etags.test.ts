/**
 * Entity tags on reads, on SQLite and PostgreSQL: a strong ETag on item, collection and subresource GETs, hashed from
 * the bytes sent (so it follows the format, the data and embedded items), 304 to a matching If-None-Match, 412 to a
 * GET whose If-Match fails, the tag of a write's response, and no extra statement for any of it.
 */
import { describe, expect, inject, it } from 'vitest';
import { testDatabases } from '@resource-api/core/testing';
import { call, useApp } from '../helpers.js';
import { MERGE_PATCH, resources, STRONG_ETAG } from './fixtures.js';

describe.each(testDatabases(inject('postgresUrl'), inject('mariadbUrl')))(
  'entity tags on reads on $name',
  (database) => {
    const app = useApp(database, { resources });
    const get = (url: string, headers: Record<string, string> = {}) => call(app(), { method: 'GET', url, headers });

    async function seed() {
      expect(
        (await call(app(), { method: 'POST', url: '/api/writers', payload: { name: 'Ursula K. Le Guin' } })).status,
      ).toBe(201);
      for (const title of ['The Dispossessed', 'The Left Hand of Darkness']) {
        expect(
          (await call(app(), { method: 'POST', url: '/api/novels', payload: { title, writer: '/api/writers/1' } }))
            .status,
        ).toBe(201);
      }
    }

    it('sends a strong ETag on item, collection and subresource GETs, the same while nothing changes', async () => {
      await seed();
      for (const url of ['/api/novels/1', '/api/novels', '/api/writers/1/novels', '/api/novels?page=2']) {
        const first = await get(url);
        expect([url, first.status]).toEqual([url, 200]);
        expect(first.headers.etag).toMatch(STRONG_ETAG);
        expect((await get(url)).headers.etag).toBe(first.headers.etag);
      }
      const tags = await Promise.all(
        ['/api/novels/1', '/api/novels/2', '/api/novels', '/api/novels?page=2'].map(
          async (url) => (await get(url)).headers.etag,
        ),
      );
      expect(new Set(tags).size).toBe(4);
    });

    it('gives JSON-LD and plain JSON their own ETags', async () => {
      await seed();
      const jsonld = await get('/api/novels/1', { accept: 'application/ld+json' });
      const json = await get('/api/novels/1', { accept: 'application/json' });
      expect(json.headers.etag).toMatch(STRONG_ETAG);
      expect(json.headers.etag).not.toBe(jsonld.headers.etag);
      // No Accept is JSON-LD: the same bytes, the same tag.
      expect((await get('/api/novels/1')).headers.etag).toBe(jsonld.headers.etag);
    });

    it('says every representation varies with Accept: reads, 304s, errors and writes', async () => {
      await seed();
      const read = await get('/api/novels/1');
      const notModified = await get('/api/novels/1', { 'if-none-match': read.headers.etag as string });
      expect(notModified.status).toBe(304);
      const missing = await get('/api/novels/99');
      expect(missing.status).toBe(404);
      const created = await call(app(), { method: 'POST', url: '/api/writers', payload: { name: 'N. K. Jemisin' } });
      const unacceptable = await get('/api/novels/1', { accept: 'text/csv' });
      expect(unacceptable.status).toBe(406);
      for (const response of [
        read,
        notModified,
        missing,
        unacceptable,
        created,
        await get('/api/novels'),
        await get('/api/docs.jsonld'),
      ])
        expect(response.headers.vary).toBe('Accept');
    });

    it('changes the ETag of an item and of its collection when the item changes', async () => {
      await seed();
      const item = (await get('/api/novels/1')).headers.etag;
      const collection = (await get('/api/novels')).headers.etag;
      const patched = await call(app(), {
        method: 'PATCH',
        url: '/api/novels/1',
        headers: MERGE_PATCH,
        payload: { pages: 387 },
      });
      expect(patched.status).toBe(200);
      expect((await get('/api/novels/1')).headers.etag).not.toBe(item);
      expect((await get('/api/novels')).headers.etag).not.toBe(collection);
      // A write that changes nothing keeps the representation, and so the tag.
      const now = (await get('/api/novels/1')).headers.etag;
      await call(app(), { method: 'PATCH', url: '/api/novels/1', headers: MERGE_PATCH, payload: { pages: 387 } });
      expect((await get('/api/novels/1')).headers.etag).toBe(now);
    });

    it('changes the ETag of an item when an item embedded in it changes', async () => {
      await seed();
      const before = await get('/api/novels/1');
      expect(before.body.writer).toEqual({
        '@id': '/api/writers/1',
        '@type': 'Writer',
        id: 1,
        name: 'Ursula K. Le Guin',
      });
      await call(app(), {
        method: 'PATCH',
        url: '/api/writers/1',
        headers: MERGE_PATCH,
        payload: { name: 'U. K. Le Guin' },
      });
      expect((await get('/api/novels/1')).headers.etag).not.toBe(before.headers.etag);
    });

    it('answers 304 without a body when If-None-Match names the current ETag: alone, in a list, weak, or *', async () => {
      await seed();
      for (const url of ['/api/novels/1', '/api/novels']) {
        const { etag } = (await get(url)).headers as { etag: string };
        for (const ifNoneMatch of [etag, `"stale", ${etag}`, `W/${etag}`, '*', `W/"x",W/${etag}`]) {
          const response = await get(url, { 'if-none-match': ifNoneMatch });
          expect([url, ifNoneMatch, response.status, response.text]).toEqual([url, ifNoneMatch, 304, '']);
          expect(response.headers.etag).toBe(etag);
        }
        const head = await call(app(), { method: 'HEAD', url, headers: { 'if-none-match': etag } });
        expect([head.status, head.headers.etag]).toEqual([304, etag]);
      }
    });

    it("answers 200 with the body when If-None-Match names only other tags, another format's, or nothing usable", async () => {
      await seed();
      const json = (await get('/api/novels/1', { accept: 'application/json' })).headers.etag as string;
      for (const ifNoneMatch of ['"stale"', json, 'garbage', '', 'W/']) {
        const response = await get('/api/novels/1', { 'if-none-match': ifNoneMatch });
        expect([ifNoneMatch, response.status]).toEqual([ifNoneMatch, 200]);
        expect(response.body.title).toBe('The Dispossessed');
      }
    });

    it('answers 304 no more once the item changed', async () => {
      await seed();
      const { etag } = (await get('/api/novels/1')).headers as { etag: string };
      await call(app(), {
        method: 'PATCH',
        url: '/api/novels/1',
        headers: MERGE_PATCH,
        payload: { title: 'The Dispossessed: An Ambiguous Utopia' },
      });
      const response = await get('/api/novels/1', { 'if-none-match': etag });
      expect(response.status).toBe(200);
      expect(response.body.title).toBe('The Dispossessed: An Ambiguous Utopia');
      expect(response.headers.etag).not.toBe(etag);
    });

    it('answers 412 to a GET whose If-Match names no current ETag, and 200 when it does', async () => {
      await seed();
      const { etag } = (await get('/api/novels/1')).headers as { etag: string };
      const failed = await get('/api/novels/1', { 'if-match': '"stale"' });
      expect(failed.status).toBe(412);
      expect(failed.body).toMatchObject({
        '@type': 'hydra:Error',
        status: 412,
        detail: 'None of the ETags in If-Match is the current one of this representation.',
      });
      expect(failed.headers.etag).toBeUndefined();
      expect((await get('/api/novels/1', { 'if-match': etag })).status).toBe(200);
      expect((await get('/api/novels/1', { 'if-match': '*' })).status).toBe(200);
    });

    it('answers POST, PUT and PATCH with the ETag a GET of the item then gives', async () => {
      const created = await call(app(), { method: 'POST', url: '/api/novels', payload: { title: 'Lavinia' } });
      expect(created.headers.etag).toMatch(STRONG_ETAG);
      expect(created.headers.etag).toBe((await get('/api/novels/1')).headers.etag);
      const patched = await call(app(), {
        method: 'PATCH',
        url: '/api/novels/1',
        headers: { ...MERGE_PATCH, accept: 'application/json' },
        payload: { pages: 279 },
      });
      expect(patched.headers.etag).toBe((await get('/api/novels/1', { accept: 'application/json' })).headers.etag);
      const put = await call(app(), { method: 'PUT', url: '/api/novels/1', payload: { title: 'Lavinia', pages: 280 } });
      expect(put.headers.etag).toBe((await get('/api/novels/1')).headers.etag);
      // Errors and empty bodies carry none.
      expect((await get('/api/novels/99')).headers.etag).toBeUndefined();
      expect((await call(app(), { method: 'DELETE', url: '/api/novels/1' })).headers.etag).toBeUndefined();
    });

    it('costs a GET no extra SQL statement, with or without If-None-Match', async () => {
      await seed();
      const { knex } = app().resourceApi.database;
      const statements = async (headers: Record<string, string>) => {
        let count = 0;
        const listener = () => {
          count += 1;
        };
        knex.on('query', listener);
        try {
          await get('/api/novels/1', headers);
        } finally {
          knex.off('query', listener);
        }
        return count;
      };
      const plain = await statements({});
      expect(plain).toBeGreaterThan(0);
      expect(await statements({ 'if-none-match': '"stale"' })).toBe(plain);
      expect(await statements({ 'if-none-match': '*' })).toBe(plain);
    });
  },
);
