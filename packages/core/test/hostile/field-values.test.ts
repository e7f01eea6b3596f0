/**
 * Hostile values in otherwise well-formed bodies: numbers JavaScript or the database cannot hold, over-long strings in
 * every kind of column (indexed and unique ones included), control characters and odd Unicode. Each is stored exactly
 * as sent or refused with a 400 naming the property — never a 500, never a changed value — on SQLite and PostgreSQL.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, inject, it } from 'vitest';
import { testDatabases } from '@resource-api/core/testing';
import { call, useApp } from '../helpers.js';
import { Note, Shelf, rows } from './fixtures.js';

const JSON_TYPE = { 'content-type': 'application/json' } as const;

/** Text that does not compress: what a btree index row limit (PostgreSQL: about 2.7 kB) really meets. */
const incompressible = (length: number) => randomBytes(length).toString('base64').slice(0, length);

describe.each(testDatabases(inject('postgresUrl'), inject('mariadbUrl')))(
  'hostile field values on $name',
  (database) => {
    const app = useApp(database, { resources: [Note, Shelf] });
    const post = (payload: string) => call(app(), { method: 'POST', url: '/api/notes', headers: JSON_TYPE, payload });
    const stored = () => rows(app(), 'note');

    it('answers 400 naming the property for integers that are not int32 or not integers at all', async () => {
      const cases = [
        '1e400',
        '-1e400',
        '9007199254740993',
        '2147483648',
        '-2147483649',
        '1e20',
        '1.5',
        '1e-7',
        '"3"',
        'true',
        '[]',
        '{}',
      ];
      for (const value of cases) {
        const response = await post(`{"title":"T","pages":${value}}`);
        expect(response.status, value).toBe(400);
        expect(
          response.body.violations?.map((v: { propertyPath: string }) => v.propertyPath),
          value,
        ).toEqual(['pages']);
      }
      expect(await stored()).toEqual([]);
    });

    it('stores integers at the edges of int32, and -0 and 1.0 as the integers they are', async () => {
      for (const [value, expected] of [
        ['2147483647', 2147483647],
        ['-2147483648', -2147483648],
        ['-0', 0],
        ['1.0', 1],
        ['1E2', 100],
      ] as const) {
        const response = await post(`{"title":"T","pages":${value}}`);
        expect(response.status, value).toBe(201);
        expect(response.body.pages, value).toBe(expected);
        expect(Object.is(response.body.pages, -0), value).toBe(false);
      }
      expect((await stored()).map((row) => Number(row.pages))).toEqual([2147483647, -2147483648, 0, 1, 100]);
    });

    it('answers 400 for floats that are not finite, and stores the extreme finite ones exactly', async () => {
      for (const value of ['1e400', '-1e400']) {
        const response = await post(`{"title":"T","price":${value}}`);
        expect(response.status, value).toBe(400);
        expect(response.body.violations[0].propertyPath).toBe('price');
      }
      const extremes = [
        Number.MAX_VALUE,
        -Number.MAX_VALUE,
        Number.MIN_VALUE,
        5e-324,
        0.1,
        // biome-ignore lint/correctness/noPrecisionLoss: 2^53 + 1 on purpose (the value is its nearest double, 2^53)
        9007199254740993,
        1.7976931348623157e308,
        // Up to 17 characters of text, which mysql2 would add up digit by digit and read one unit in the last place off.
        999999999.9999987,
        123456.78901234567,
        -0.30000000000000004,
      ];
      for (const price of extremes) {
        const response = await post(JSON.stringify({ title: 'T', price }));
        expect(response.status, String(price)).toBe(201);
        expect(response.body.price, String(price)).toBe(price);
      }
      expect((await stored()).map((row) => Number(row.price))).toEqual(extremes);
    });

    it('stores over-long strings exactly in text, json and string[] fields', async () => {
      const long = incompressible(200_000);
      const response = await post(JSON.stringify({ title: 'T', body: long, tags: [long], extra: { long } }));
      expect(response.status).toBe(201);
      const read = await call(app(), { method: 'GET', url: '/api/notes/1' });
      expect(read.body.body).toBe(long);
      expect(read.body.tags).toEqual([long]);
      expect(read.body.extra).toEqual({ long });
    });

    it('stores an over-long string in a field without an index exactly', async () => {
      const long = incompressible(100_000);
      const response = await post(JSON.stringify({ title: 'T', by_partial: long }));
      expect(response.status).toBe(201);
      expect((await stored())[0]!.by_partial).toBe(long);
    });

    it('stores or refuses with 400 (never 500) an over-long string in an indexed or unique field, and the data stays as the answers say', async () => {
      for (const length of [1_000, 3_000, 10_000, 100_000]) {
        const title = incompressible(length);
        const note = await post(JSON.stringify({ title, rank: 1 }));
        expect([201, 400], `title of ${length}`).toContain(note.status);
        if (note.status === 400) expect(note.body.violations[0].propertyPath).toBe('title');
        const shelf = await call(app(), {
          method: 'POST',
          url: '/api/shelves',
          payload: { label: title, code: title },
        });
        expect([201, 400], `code of ${length}`).toContain(shelf.status);
      }
      // What was accepted is stored exactly, what was refused is not stored at all.
      const titles = (await stored()).map((row) => (row.title as string).length);
      const accepted = (await call(app(), { method: 'GET', url: '/api/notes?pagination=false' })).body[
        'hydra:member'
      ].map((n: { title: string }) => n.title.length);
      expect(titles).toEqual(accepted);
    });

    it('stores control characters, bidi overrides, zero-width and astral characters exactly (the NUL character aside)', async () => {
      const title =
        '\u0001\u0007\b\t\n\r\u001b[31m\u007f\u0085\u200b\u200d\u202e\u2028\u2029\ufeff\uffff😀\u{1F3F3}\u{FE0F}\u{200D}\u{1F308}';
      const response = await post(JSON.stringify({ title, tags: [title], extra: { [title]: title } }));
      expect(response.status).toBe(201);
      const read = await call(app(), { method: 'GET', url: '/api/notes/1' });
      expect(read.body.title).toBe(title);
      expect(read.body.tags).toEqual([title]);
      expect(read.body.extra).toEqual({ [title]: title });
      const nul = await post(JSON.stringify({ title: 'a\u0000b' }));
      expect(nul.status).toBe(400);
    });

    it('answers 400 for dates and date-times a database cannot hold, naming the property', async () => {
      const cases: [string, unknown][] = [
        ['writtenAt', '+275760-09-13T00:00:00.001Z'],
        ['writtenAt', '-271821-04-20T00:00:00Z'],
        ['writtenAt', '0000-00-00T00:00:00Z'],
        ['writtenAt', '2021-02-30T00:00:00Z'],
        ['writtenAt', '2021-01-01T25:00:00Z'],
        ['writtenAt', 1_700_000_000],
        ['dueOn', '2021-02-30'],
        ['dueOn', '99999-01-01'],
        ['dueOn', '2021-1-1'],
        ['dueOn', ''],
      ];
      for (const [field, value] of cases) {
        const response = await post(JSON.stringify({ title: 'T', [field]: value }));
        expect(response.status, `${field} ${String(value)}`).toBe(400);
        expect(response.body.violations[0].propertyPath).toBe(field);
      }
      expect(await stored()).toEqual([]);
    });

    it('stores date-times in the year 0 (1 BC) exactly, and refuses dates in it with 400 (PostgreSQL has no date there)', async () => {
      const cases: [string, string][] = [
        ['writtenAt', '0000-01-01T00:00:00Z'],
        ['writtenAt', '0000-12-31T23:59:59-01:00'],
        ['dueOn', '0000-01-01'],
        ['dueOn', '0000-02-29'],
      ];
      const statuses: number[] = [];
      for (const [field, value] of cases) {
        const response = await post(JSON.stringify({ title: 'T', [field]: value }));
        expect([201, 400], `${field} ${value}: ${response.text.slice(0, 200)}`).toContain(response.status);
        statuses.push(response.status);
        if (response.status === 400) {
          expect(response.body.violations[0].propertyPath).toBe(field);
          continue;
        }
        const read = await call(app(), { method: 'GET', url: response.body['@id'] });
        if (field === 'dueOn') expect(read.body.dueOn).toBe(value);
        else expect(new Date(read.body.writtenAt).getTime()).toBe(new Date(value).getTime());
      }
      expect(statuses).toEqual([201, 201, 400, 400]);
    });

    it('stores dates at the edges of the calendar exactly', async () => {
      for (const [writtenAt, dueOn] of [
        ['0001-01-01T00:00:00Z', '0001-01-01'],
        ['9999-12-31T23:59:59.999Z', '9999-12-31'],
        ['1970-01-01T00:00:00Z', '2024-02-29'],
      ]) {
        const response = await post(JSON.stringify({ title: 'T', writtenAt, dueOn }));
        expect(response.status, writtenAt).toBe(201);
        expect(new Date(response.body.writtenAt).toISOString(), writtenAt).toBe(new Date(writtenAt!).toISOString());
        expect(response.body.dueOn).toBe(dueOn);
        const read = await call(app(), { method: 'GET', url: response.body['@id'] });
        expect(new Date(read.body.writtenAt).toISOString()).toBe(new Date(writtenAt!).toISOString());
        expect(read.body.dueOn).toBe(dueOn);
      }
    });

    it('answers 400 for relations given as hostile IRIs and ids, naming the property', async () => {
      for (const shelf of [
        '/api/shelves/1e3',
        '/api/shelves/0x1',
        '/api/shelves/-1',
        '/api/shelves/99999999999999999999',
        "/api/shelves/1' OR '1'='1",
        '/api/shelves/1/../2',
        1,
        true,
        ['/api/shelves/1'],
        { '@id': '/api/shelves/1' },
      ]) {
        const response = await post(JSON.stringify({ title: 'T', shelf }));
        expect(response.status, JSON.stringify(shelf)).toBe(400);
        expect(response.body.violations[0].propertyPath).toBe('shelf');
      }
      expect(await stored()).toEqual([]);
    });

    it('answers 404 for item paths whose id cannot exist, whatever it looks like', async () => {
      await post('{"title":"T"}');
      for (const id of [
        '0',
        '-1',
        '1e0',
        '01',
        '0x1',
        '1.0',
        '99999999999999999999',
        '2147483648',
        '%20',
        "1'%20OR%20'1'%3D'1",
        '1;--',
        '%00',
      ]) {
        for (const method of ['GET', 'DELETE'] as const) {
          const response = await call(app(), { method, url: `/api/notes/${id}` });
          expect(response.status, `${method} ${id}`).toBe(404);
        }
      }
      // Broken percent-encoding is no path at all: Fastify's router answers 400 before any route runs.
      const broken = await call(app(), { method: 'GET', url: '/api/notes/%E0%A4%A' });
      expect(broken.status).toBe(400);
      expect((await stored()).map((row) => row.title)).toEqual(['T']);
    });
  },
);
