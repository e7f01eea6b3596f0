/**
 * Hostile query strings against every filter, the pagination parameters and the query string itself: SQL and LIKE /
 * GLOB metacharacters, quotes and comments, NUL, arrays and nested keys where one value is expected, absurd numbers and
 * dates, repeated parameters, thousands of values. Each request gets a correct result or a clear 400 — never a 500 —
 * and the SQL text never changes with a value: hostile values travel as bindings only. On SQLite and PostgreSQL.
 */
import { describe, expect, inject, it } from 'vitest';
import { testDatabases } from '@resource-api/core/testing';
import { call, useApp } from '../helpers.js';
import { INDEXED_SEARCH_FIELDS, IndexedNote, Note, SEARCH_FIELDS, Shelf, recordSql, rows } from './fixtures.js';

/** Texts full of the characters SQL, LIKE and GLOB give a meaning to; every search field of a note holds its text. */
const TEXTS = [
  '100% cotton',
  '10_000 items',
  'back\\slash',
  "O'Brien's",
  'semi;--colon',
  'plain text',
  'star*glob?[x]',
  'under_score',
  'percent%sign',
  'quote"double',
  'Mixed CASE',
  'ends with %',
];

/** Values a client might send, hostile or just unlucky. */
const VALUES = [
  '%',
  '_',
  '\\',
  "'",
  '"',
  ';--',
  '%%',
  '\\%',
  '\\_',
  '%_%',
  "' OR 1=1 --",
  "x'); DROP TABLE note; --",
  "%' OR '%'='",
  '*',
  '?',
  '[x]',
  '[a-z]',
  '$1',
  '??',
  ':name',
  '/*',
  '*/',
  '0 cotton',
  'cotton',
  '10_',
  "O'",
  's',
  'plain',
  'MIXED',
  'with %',
  '',
];

const SHELF_LABELS = ['Shelf 100%', 'shelf_2'];

type Strategy = 'exact' | 'partial' | 'start' | 'end' | 'word_start';

/** What a search strategy means, in JavaScript: the model the database results are checked against. */
function matches(text: string, value: string, strategy: string): boolean {
  const insensitive = strategy.startsWith('i') && strategy !== 'iexact' ? true : strategy === 'iexact';
  const base = (insensitive ? strategy.slice(1) : strategy) as Strategy;
  const [t, v] = insensitive ? [text.toLowerCase(), value.toLowerCase()] : [text, value];
  switch (base) {
    case 'exact':
      return t === v;
    case 'partial':
      return t.includes(v);
    case 'start':
      return t.startsWith(v);
    case 'end':
      return t.endsWith(v);
    case 'word_start':
      return t.startsWith(v) || t.includes(` ${v}`);
  }
}

const STRATEGY_OF: Record<string, string> = { title: 'partial', body: 'ipartial', 'shelf.label': 'iexact' };
const strategyOf = (field: string) => STRATEGY_OF[field] ?? field.slice('by_'.length);

describe.each(testDatabases(inject('postgresUrl'), inject('mariadbUrl')))(
  'hostile query strings on $name',
  (database) => {
    // MariaDB refuses a substringIndex at start-up (collections/substring-index.test.ts).
    const indexed = database.name !== 'mariadb';
    const app = useApp(database, { resources: indexed ? [Note, Shelf, IndexedNote] : [Note, Shelf] });

    async function seed(): Promise<void> {
      for (const label of SHELF_LABELS)
        expect((await call(app(), { method: 'POST', url: '/api/shelves', payload: { label } })).status).toBe(201);
      for (const [index, text] of TEXTS.entries()) {
        const fields = Object.fromEntries(SEARCH_FIELDS.filter((f) => !f.includes('.')).map((f) => [f, text]));
        const payload = {
          ...fields,
          pages: index,
          rank: index,
          price: index / 2,
          done: index % 2 === 0,
          shelf: `/api/shelves/${(index % 2) + 1}`,
        };
        expect((await call(app(), { method: 'POST', url: '/api/notes', payload })).status).toBe(201);
      }
    }

    /** The titles a GET answers (all pages at once), with the SQL it ran. */
    async function titles(query: string) {
      const { result, queries } = await recordSql(app(), () =>
        call(app(), { method: 'GET', url: `/api/notes?pagination=false&${query}` }),
      );
      expect(result.status, `${query.slice(0, 100)}: ${result.text.slice(0, 300)}`).toBe(200);
      return {
        titles: (result.body['hydra:member'] as { title: string }[]).map((n) => n.title).sort(),
        sql: queries.map((q) => q.sql),
        queries,
      };
    }

    it('finds exactly what each strategy means for every hostile value, with the SQL of a harmless value', async () => {
      await seed();
      for (const field of SEARCH_FIELDS) {
        const harmless = await titles(`${field}=zz`);
        expect(harmless.sql.length).toBeGreaterThan(0);
        for (const value of VALUES) {
          const answer = await titles(`${encodeURIComponent(field)}=${encodeURIComponent(value)}`);
          const expected =
            field === 'shelf.label'
              ? TEXTS.filter((_, index) => matches(SHELF_LABELS[index % 2]!, value, 'iexact'))
              : TEXTS.filter((text) => matches(text, value, strategyOf(field)));
          expect(answer.titles, `${field}=${value}`).toEqual([...expected].sort());
          // The value changed the bindings, never the statement.
          expect(answer.sql, `${field}=${value}`).toEqual(harmless.sql);
        }
      }
    });

    it.skipIf(!indexed)(
      'finds the same through a substring index, with the SQL of a harmless value of the same length',
      async () => {
        for (const text of TEXTS) {
          const payload = Object.fromEntries(INDEXED_SEARCH_FIELDS.map((f) => [f, text]));
          expect((await call(app(), { method: 'POST', url: '/api/indexed_notes', payload })).status).toBe(201);
        }
        const found = async (query: string) => {
          const { result, queries } = await recordSql(app(), () =>
            call(app(), { method: 'GET', url: `/api/indexed_notes?pagination=false&${query}` }),
          );
          expect(result.status, `${query}: ${result.text.slice(0, 300)}`).toBe(200);
          return {
            texts: (result.body['hydra:member'] as Record<string, string>[]).map((n) => n.by_exact).sort(),
            sql: queries.map((q) => q.sql),
          };
        };
        for (const field of INDEXED_SEARCH_FIELDS) {
          // The index is consulted from 3 characters on: the SQL may differ by the length, never by the value itself.
          const harmless = async (value: string) => (await found(`${field}=${'z'.repeat([...value].length)}`)).sql;
          for (const value of [
            ...VALUES,
            '"',
            '""',
            'a"b',
            '" OR "',
            'NEAR(a b)',
            'a AND b',
            '^cotton',
            'cot*',
            '-plain',
            '{title}:x',
          ]) {
            const answer = await found(`${field}=${encodeURIComponent(value)}`);
            expect(answer.texts, `${field}=${value}`).toEqual(
              TEXTS.filter((text) => matches(text, value, field.slice('by_'.length))).sort(),
            );
            expect(answer.sql, `${field}=${value}`).toEqual(await harmless(value));
          }
        }
      },
    );

    it('binds several hostile values of one parameter (ORed) without changing the SQL for that count', async () => {
      await seed();
      const harmless = await titles('title[]=zz&title[]=yy');
      const answer = await titles(`title[]=${encodeURIComponent("%' OR 1=1 --")}&title[]=${encodeURIComponent('_')}`);
      expect(answer.sql).toEqual(harmless.sql);
      expect(answer.titles).toEqual(TEXTS.filter((t) => t.includes('_')).sort());
    });

    it('matches values up to 10,000 characters, metacharacters included, and refuses longer ones with 400', async () => {
      await seed();
      expect((await titles(`title=${'x'.repeat(10_000)}`)).titles).toEqual([]);
      for (const field of ['body', 'by_partial', 'by_iword_start', 'by_end']) {
        for (const char of ['%', '*', '_', '[', '\\']) {
          expect(
            (await titles(`${field}=${encodeURIComponent(char.repeat(10_000))}`)).titles,
            `${field} ${char}`,
          ).toEqual([]);
        }
      }
      for (const query of [
        `title=${'x'.repeat(10_001)}`,
        `${'x'.repeat(10_001)}=1`,
        `order[title]=${'a'.repeat(20_000)}`,
      ]) {
        const response = await call(app(), { method: 'GET', url: `/api/notes?${query}` });
        expect(response.status).toBe(400);
        expect(response.body.detail).toMatch(/^Query parameter "x*(…)?[^"]*" is longer than 10000 characters\.$/);
      }
    });

    it('takes a parameter up to 100 times (ORed), and refuses more with 400 — never a 500', async () => {
      await seed();
      for (const parameter of ['title[]', 'by_word_start[]', 'by_iword_start', 'pages[]', 'rank[]', 'shelf[]']) {
        const list = (count: number) =>
          Array.from({ length: count }, (_, i) => `${parameter}=${parameter === 'shelf[]' ? (i % 3) + 1 : i}`).join(
            '&',
          );
        const hundred = await call(app(), { method: 'GET', url: `/api/notes?${list(100)}` });
        expect(hundred.status, `${parameter}: ${hundred.text.slice(0, 200)}`).toBe(200);
        for (const count of [101, 5_000]) {
          const response = await call(app(), { method: 'GET', url: `/api/notes?${list(count)}` });
          expect(response.status, `${count} × ${parameter}`).toBe(400);
          expect(response.body.detail).toBe(`Query parameter "${parameter}" is given more than 100 times.`);
        }
      }
      // The numeric filter's values really are ORed: 100 of them find every note whose pages are among them.
      const pages = Array.from({ length: 100 }, (_, i) => `pages[]=${i}`).join('&');
      expect((await titles(pages)).titles).toEqual([...TEXTS].sort());
    });

    it('answers 400 for values a filter cannot use, before any SQL runs', async () => {
      await seed();
      const invalid = [
        'pages=abc',
        'pages=1e400',
        'pages=1.5',
        'pages=1e20',
        'pages=2147483648',
        'pages=-2147483649',
        'pages=0x10',
        'pages=NaN',
        'pages=Infinity',
        'pages= ',
        'rank=1e20',
        'rank=1.5',
        'rank=99999999999999999999',
        'price=abc',
        'price=1e400',
        'price=--1',
        'price[]=1&price[]=x',
        'pages[gt]=1e20',
        'pages[gt]=1.5',
        'pages[lt]=abc',
        'pages[between]=1..',
        'pages[between]=1..2..3',
        'pages[between]=a..b',
        'price[between]=..',
        'price[gte]=1e999',
        'writtenAt[after]=yesterday',
        'writtenAt[after]=2021-02-30',
        'dueOn[after]=2021-02-30',
        'writtenAt[after]=2021-02-29T10:00:00Z',
        'writtenAt[after]=2021-13-01',
        'writtenAt[after]=2021-01-01T00:00:00+99:99',
        'writtenAt[strictly_after]=99999-01-01',
        'writtenAt[gt]=-001-01-01',
        'dueOn[before]=0000-01-01',
        'dueOn[after]=2021-02-30x',
        'done=yes',
        'done=',
        'done=true&done=false',
        'exists[body]=maybe',
        'exists[shelf]=',
        'exists[shelf]=1&exists[shelf]=0',
        'order[title]=up',
        'order[title]=asc;DROP TABLE note',
        'order[title]=asc&order[title]=desc',
        'order[shelf.label]=sideways',
        'shelf=/api/notes/1',
        'shelf=/api/shelves/0',
        'shelf=/api/shelves/1e3',
        'shelf=abc',
        "shelf=1' OR '1'='1",
        'shelf=99999999999999999999',
        'page=0',
        'page=-1',
        'page=1e20',
        'page=1.5',
        'page=abc',
        'page=99999999999999999999',
        'page=9007199254740991',
        'page=',
        'page=1&page=2',
        'itemsPerPage=-1',
        'itemsPerPage=1e3',
        'itemsPerPage=abc',
        'itemsPerPage=1&itemsPerPage=2',
        'pagination=maybe',
        'pagination=true&pagination=false',
        'title=a%00b',
        'ti%00tle=x',
        'order[title]=%00',
        'pages[gt]=1%00',
      ];
      for (const query of invalid) {
        const { result, queries } = await recordSql(app(), () =>
          call(app(), { method: 'GET', url: `/api/notes?${query}` }),
        );
        expect(result.status, `${query}: ${result.text.slice(0, 200)}`).toBe(400);
        expect(result.body, query).toMatchObject({ '@type': 'hydra:Error', status: 400 });
        expect(queries, query).toEqual([]);
      }
    });

    it('gives correct results for edge values filters accept', async () => {
      await seed();
      const all = [...TEXTS].sort();
      const cases: [string, string[]][] = [
        ['pages=-0', [TEXTS[0]!]],
        ['pages=2147483647', []],
        ['pages=-2147483648', []],
        ['pages[gte]=-2147483648&pages[lte]=2147483647', all],
        ['price=1e-300', []],
        ['price[gt]=-1e308', all],
        ['price=0.5', [TEXTS[1]!]],
        ['pages[between]=-0..1', [TEXTS[0]!, TEXTS[1]!].sort()],
        ['writtenAt[after]=0001-01-01', []],
        ['writtenAt[before]=0000-01-01', []],
        ['dueOn[after]=2024-02-29', []],
        ['writtenAt[before]=9999-12-31T23:59:59Z', []],
        ['dueOn[before]=0001-01-01', all],
        ['done=1', TEXTS.filter((_, i) => i % 2 === 0).sort()],
        ['exists[body]=true', all],
        ['exists[shelf]=0', []],
        ['shelf=2', TEXTS.filter((_, i) => i % 2 === 1).sort()],
        ['shelf=%2Fapi%2Fshelves%2F1', TEXTS.filter((_, i) => i % 2 === 0).sort()],
        ['shelf=2147483647', []],
        ['order[title]=DESC', all],
        ['order[title]=', all],
        ['title[a][b]=x', all],
        ['title[]]=x', all],
        ['order[title][x]=asc', all],
        ['order=asc', all],
        ['pages[gt][]=1', all],
        ['exists=true', all],
        ['%5B%5D=1', all],
        ['=x&&&=', all],
        ['title=%E0%A4%A', []],
        ['title=%FF', []],
        ['title=+', TEXTS.filter((t) => t.includes(' ')).sort()],
        ['unknown=%00'.replace('%00', 'x'), all],
      ];
      for (const [query, expected] of cases) {
        expect((await titles(query)).titles, query).toEqual(expected);
      }
    });

    it('answers past-the-end pages and clamps page sizes without a 500', async () => {
      await seed();
      for (const query of [
        'page=2147483647',
        'page=100000000000',
        'itemsPerPage=99999999999',
        'itemsPerPage=0',
        'itemsPerPage=100&page=3',
        'page=450359962737049&itemsPerPage=1',
      ]) {
        const response = await call(app(), { method: 'GET', url: `/api/notes?${query}` });
        expect(response.status, `${query}: ${response.text.slice(0, 200)}`).toBe(200);
        expect(response.body['hydra:totalItems'], query).toBe(TEXTS.length);
      }
      const clamped = await call(app(), { method: 'GET', url: '/api/notes?itemsPerPage=99999999999' });
      expect(clamped.body['hydra:member']).toHaveLength(TEXTS.length);
      expect(clamped.body['hydra:view']['@id']).toBe('/api/notes?itemsPerPage=99999999999&page=1');
    });

    it('leaves the data as it was after every hostile read', async () => {
      await seed();
      const before = await rows(app(), 'note');
      for (const value of VALUES)
        await call(app(), {
          method: 'GET',
          url: `/api/notes?title=${encodeURIComponent(value)}&order[title]=${encodeURIComponent(value)}`,
        });
      expect(await rows(app(), 'note')).toEqual(before);
      expect(await rows(app(), 'shelf')).toHaveLength(2);
    });
  },
);
