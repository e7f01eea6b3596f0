/**
 * Hostile request bodies: too large, not UTF-8, nested without end, keys that would pollute prototypes or name
 * columns, unpaired surrogates. Each gets a clear 4xx (or is stored exactly), never a 500, and a refused body writes
 * nothing — on SQLite and PostgreSQL.
 */
import { describe, expect, inject, it } from 'vitest';
import { buildTestApp, testDatabases } from '@resource-api/core/testing';
import { call, useApp } from '../helpers.js';
import { Note, Shelf, recordSql, rows } from './fixtures.js';

const JSON_TYPE = { 'content-type': 'application/json' } as const;

describe.each(testDatabases(inject('postgresUrl'), inject('mariadbUrl')))(
  'hostile request bodies on $name',
  (database) => {
    const app = useApp(database, { resources: [Note, Shelf] });
    const post = (payload: string | Buffer, headers: Record<string, string> = JSON_TYPE) =>
      call(app(), { method: 'POST', url: '/api/notes', headers, payload });
    const stored = () => rows(app(), 'note');

    it('answers 413 above the default limit of 1 MiB, on every write method, and stores nothing', async () => {
      const big = JSON.stringify({ title: 'T', body: 'x'.repeat(1024 * 1024) });
      const response = await post(big);
      expect(response.status).toBe(413);
      expect(response.body).toMatchObject({
        '@type': 'hydra:Error',
        status: 413,
        detail: 'The request body is too large.',
      });
      await post(JSON.stringify({ title: 'T' }));
      for (const method of ['PUT', 'PATCH'] as const) {
        const headers = method === 'PATCH' ? { 'content-type': 'application/merge-patch+json' } : JSON_TYPE;
        const refused = await call(app(), { method, url: '/api/notes/1', headers, payload: big });
        expect(refused.status, method).toBe(413);
      }
      // Bodies of types the API does not read are counted too.
      expect((await post(Buffer.alloc(1024 * 1024 + 1, 'a'), { 'content-type': 'text/plain' })).status).toBe(413);
      expect((await stored()).map((row) => row.title)).toEqual(['T']);
    });

    it('accepts a body just under the limit', async () => {
      const body = 'y'.repeat(1024 * 1024 - 100);
      const response = await post(JSON.stringify({ title: 'T', body }));
      expect(response.status).toBe(201);
      expect((await stored())[0]!.body).toBe(body);
    });

    it('takes its limit from the bodyLimit option', async () => {
      const small = await buildTestApp({ database, resources: [Note, Shelf], bodyLimit: 100 });
      try {
        const refused = await call(small, {
          method: 'POST',
          url: '/api/notes',
          headers: JSON_TYPE,
          payload: JSON.stringify({ title: 'T', body: 'x'.repeat(100) }),
        });
        expect(refused.status).toBe(413);
        const accepted = await call(small, {
          method: 'POST',
          url: '/api/notes',
          headers: JSON_TYPE,
          payload: JSON.stringify({ title: 'T' }),
        });
        expect(accepted.status).toBe(201);
      } finally {
        await small.close();
      }
    });

    it('answers 400 for a body that is not valid UTF-8, and stores nothing', async () => {
      const invalid = [
        Buffer.concat([Buffer.from('{"title":"caf'), Buffer.from([0xe9]), Buffer.from('"}')]), // Latin-1 é
        Buffer.concat([Buffer.from('{"title":"'), Buffer.from([0xc0, 0xaf]), Buffer.from('"}')]), // overlong "/"
        Buffer.concat([Buffer.from('{"title":"'), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('"}')]), // an encoded surrogate
        Buffer.concat([Buffer.from('{"title":"a'), Buffer.from([0xf0, 0x9f, 0x98]), Buffer.from('"}')]), // a truncated sequence
      ];
      for (const payload of invalid) {
        const response = await post(payload);
        expect(response.status, payload.toString('hex')).toBe(400);
        expect(response.body.detail).toBe('The request body is not valid UTF-8.');
      }
      expect(await stored()).toEqual([]);
    });

    it('stores valid multi-byte UTF-8 exactly', async () => {
      const title = 'Crème brûlée 日本語 😀 \u{10FFFF}';
      const response = await post(Buffer.from(JSON.stringify({ title }), 'utf8'));
      expect(response.status).toBe(201);
      expect(response.body.title).toBe(title);
      expect((await stored())[0]!.title).toBe(title);
    });

    it('answers 400 for unpaired surrogates, which no database can store as sent', async () => {
      for (const payload of [
        '{"title":"a\\ud800b"}',
        '{"title":"\\udc00"}',
        '{"title":"T","tags":["\\ud83d"]}',
        '{"title":"T","extra":{"\\ud800":1}}',
      ]) {
        const response = await post(payload);
        expect(response.status, payload).toBe(400);
        expect(response.body.detail, payload).toBe(
          'The request body holds a string that is not valid Unicode (an unpaired surrogate).',
        );
      }
      const paired = await post('{"title":"\\ud83d\\ude00"}');
      expect(paired.status).toBe(201);
      expect(paired.body.title).toBe('😀');
      expect((await stored()).map((row) => row.title)).toEqual(['😀']);
    });

    it('answers 400, not a stack overflow, for JSON nested 10,000 and 100,000 levels deep', async () => {
      for (const depth of [10_000, 100_000]) {
        for (const [open, close] of [
          ['[', ']'],
          ['{"a":', '}'],
        ]) {
          const payload = `{"title":"T","extra":${open!.repeat(depth)}1${close!.repeat(depth)}}`;
          const response = await post(payload);
          expect(response.status, `${depth} ${open}`).toBe(400);
          expect(response.body.detail).toBe('The request body is nested too deeply (more than 64 levels).');
        }
      }
      expect(await stored()).toEqual([]);
    });

    it('stores JSON nested to the limit exactly', async () => {
      let extra: unknown = 'leaf';
      for (let level = 0; level < 62; level++) extra = level % 2 === 0 ? [extra] : { deeper: extra };
      const response = await post(JSON.stringify({ title: 'T', extra }));
      expect(response.status).toBe(201);
      expect(response.body.extra).toEqual(extra);
      const read = await call(app(), { method: 'GET', url: '/api/notes/1' });
      expect(read.body.extra).toEqual(extra);
    });

    it('stores a wide body (a long array, many keys) exactly', async () => {
      const tags = Array.from({ length: 20_000 }, (_, i) => `t${i}`);
      const extra = Object.fromEntries(Array.from({ length: 5_000 }, (_, i) => [`k${i}`, i]));
      const response = await post(JSON.stringify({ title: 'T', tags, extra }));
      expect(response.status).toBe(201);
      const read = await call(app(), { method: 'GET', url: '/api/notes/1' });
      expect(read.body.tags).toEqual(tags);
      expect(read.body.extra).toEqual(extra);
    });

    it('refuses __proto__ and constructor.prototype keys anywhere in the body, and pollutes nothing', async () => {
      const attacks = [
        '{"title":"T","__proto__":{"polluted":"yes"}}',
        '{"title":"T","extra":{"__proto__":{"polluted":"yes"}}}',
        '{"title":"T","extra":[{"a":{"__proto__":{"polluted":"yes"}}}]}',
        '{"title":"T","constructor":{"prototype":{"polluted":"yes"}}}',
        '{"title":"T","extra":{"constructor":{"prototype":{"polluted":"yes"}}}}',
        '{"title":"T","\\u005f\\u005fproto__":{"polluted":"yes"}}',
      ];
      for (const payload of attacks) {
        const created = await post(payload);
        expect(created.status, payload).toBe(400);
        expect(created.body.detail, payload).toMatch(
          /^The JSON body must not contain the key "(__proto__|constructor\.prototype)"\.$/,
        );
      }
      await post('{"title":"T"}');
      for (const payload of attacks) {
        const patched = await call(app(), {
          method: 'PATCH',
          url: '/api/notes/1',
          headers: { 'content-type': 'application/merge-patch+json' },
          payload,
        });
        expect(patched.status, payload).toBe(400);
        const put = await call(app(), { method: 'PUT', url: '/api/notes/1', headers: JSON_TYPE, payload });
        expect(put.status, payload).toBe(400);
      }
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      expect(Object.prototype).not.toHaveProperty('polluted');
      expect((await stored()).map((row) => row.title)).toEqual(['T']);
    });

    it('keeps keys named like Object.prototype members as plain data of a json field', async () => {
      const extra = { constructor: 'c', toString: 't', hasOwnProperty: 1, valueOf: null, prototype: { x: 1 } };
      const response = await post(JSON.stringify({ title: 'T', extra }));
      expect(response.status).toBe(201);
      expect(response.body.extra).toEqual(extra);
      expect((await call(app(), { method: 'GET', url: '/api/notes/1' })).body.extra).toEqual(extra);
    });

    it('never turns body keys into SQL: unknown and hostile keys are ignored, and the INSERT names only declared columns', async () => {
      const { result, queries } = await recordSql(app(), () =>
        post(
          JSON.stringify({
            title: 'T',
            'title"; DROP TABLE note; --': 'x',
            "id') --": 1,
            id: 99,
            'shelf.label': 'x',
            toString: 'x',
            hasOwnProperty: 'x',
          }),
        ),
      );
      expect(result.status).toBe(201);
      expect(result.body.id).toBe(1);
      const insert = queries.find((query) => /^insert/i.test(query.sql))!;
      expect(insert.sql).not.toMatch(/DROP|--|toString|hasOwnProperty|shelf\.label/);
      expect(insert.bindings).not.toContain('x');
      expect((await stored()).map((row) => [row.id, row.title])).toEqual([[1, 'T']]);
    });

    it('refuses a Content-Type it does not read with 415, whatever the bytes', async () => {
      for (const type of [
        'text/plain',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
        'application/xml',
      ]) {
        const response = await post(Buffer.from([0xff, 0xfe, 0x00, 0x7b]), { 'content-type': type });
        expect(response.status, type).toBe(415);
      }
      expect(await stored()).toEqual([]);
    });
  },
);
