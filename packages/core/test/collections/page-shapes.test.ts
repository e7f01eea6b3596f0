/**
 * Filtered pages are written as SQL from their conditions (`state/sql/page-sql.ts`), whose text depends only on their
 * shape: requests whose filters differ only in their values run the same prepared statement with their own values.
 * Every answer must still be the one its own values ask for, whatever ran before it on the same app; values that
 * change the SQL (a list of another length, a search too short for the trigram index) are shapes of their own; a
 * custom filter's `raw` condition binds its values like any other.
 */
import { describe, expect, inject, it } from 'vitest';
import { defineFilter, defineResource, raw, singleValue } from '@resource-api/core';
import { testDatabases } from '@resource-api/core/testing';
import { call, useApp } from '../helpers.js';

/** A custom filter whose condition is SQL of its own (a `raw` node), naming the title's column. */
const longerThan = defineFilter({
  describe: () => [
    {
      variable: 'longerThan',
      property: null,
      required: false,
      schema: { type: 'integer' },
      isCollection: false,
      description: 'Titles longer than n.',
    },
  ],
  parse: (query) => {
    const value = singleValue(query, 'longerThan');
    return value === undefined ? undefined : Number(value);
  },
  conditions: (n: number) => [raw('length({title}) > ?', [n])],
});

/** MariaDB refuses a substringIndex at start-up (collections/substring-index.test.ts): its novels have none. */
const novel = (substringIndex: boolean) =>
  defineResource({
    name: 'Novel',
    fields: {
      title: { type: 'string' },
      pages: { type: 'integer' },
      publishedAt: { type: 'datetime', nullable: true },
    },
    filters: [
      { type: 'search', properties: { title: 'ipartial' }, substringIndex },
      { type: 'numeric', properties: ['pages'] },
      { type: 'range', properties: ['pages'] },
      { type: 'date', properties: { publishedAt: 'include_null_before' } },
      { type: 'exists', properties: ['publishedAt'] },
      { type: 'order', properties: ['title', 'pages'] },
      longerThan,
    ],
  });
const Novel = novel(true);
const UnindexedNovel = novel(false);

const NOVELS = [
  { title: 'Kindred', pages: 264, publishedAt: '1979-06-01T00:00:00.000Z' },
  { title: 'Dawn', pages: 264, publishedAt: '1987-05-01T00:00:00.000Z' },
  { title: 'Wild Seed', pages: 248, publishedAt: null },
  { title: 'Parable of the Sower', pages: 345, publishedAt: '1993-10-01T00:00:00.000Z' },
  { title: 'Parable of the Talents', pages: 365, publishedAt: '1998-09-01T00:00:00.000Z' },
  { title: 'Fledgling', pages: 310, publishedAt: null },
  { title: 'Mind of My Mind', pages: 221, publishedAt: '1977-01-01T00:00:00.000Z' },
];

type Novel = (typeof NOVELS)[number];

/** The titles a request should list, in order, computed from the rows rather than asked of a server. */
function expected(
  rows: readonly Novel[],
  keep: (novel: Novel) => boolean,
  order?: 'title' | '-title' | 'pages',
): string[] {
  const kept = rows.filter(keep);
  if (order === 'title') kept.sort((a, b) => a.title.localeCompare(b.title));
  if (order === '-title') kept.sort((a, b) => b.title.localeCompare(a.title));
  if (order === 'pages') kept.sort((a, b) => a.pages - b.pages || NOVELS.indexOf(a) - NOVELS.indexOf(b));
  return kept.map((novel) => novel.title);
}

describe.each(testDatabases(inject('postgresUrl'), inject('mariadbUrl')))(
  'the shapes of filtered pages on $name',
  (database) => {
    const app = useApp(database, {
      resources: [database.name === 'mariadb' ? UnindexedNovel : Novel],
      pagination: { itemsPerPage: 30 },
    });

    async function titles(url: string): Promise<{ titles: string[]; total: number }> {
      const response = await call(app(), { method: 'GET', url });
      expect(response.status, url).toBe(200);
      const body = response.body as { 'hydra:member': { title: string }[]; 'hydra:totalItems': number };
      return { titles: body['hydra:member'].map((novel) => novel.title), total: body['hydra:totalItems'] };
    }

    async function seed(): Promise<void> {
      for (const novel of NOVELS) {
        const response = await call(app(), { method: 'POST', url: '/api/novels', payload: novel });
        expect(response.status).toBe(201);
      }
    }

    it('answers each request of one shape with its own values, asked twice over, in any order', async () => {
      await seed();
      const cases: [string, string[]][] = [];
      for (const term of ['parable', 'of', 'seed', 'nothing here', 'PARABLE', 'mind']) {
        for (const order of ['asc', 'desc'] as const) {
          cases.push([
            `/api/novels?title=${encodeURIComponent(term)}&order%5Btitle%5D=${order}`,
            expected(
              NOVELS,
              (n) => n.title.toLowerCase().includes(term.toLowerCase()),
              order === 'asc' ? 'title' : '-title',
            ),
          ]);
        }
      }
      for (const [low, high] of [
        [200, 300],
        [250, 400],
        [0, 100],
        [300, 310],
      ]) {
        cases.push([
          `/api/novels?pages%5Bgte%5D=${low}&pages%5Blte%5D=${high}&order%5Bpages%5D=asc`,
          expected(NOVELS, (n) => n.pages >= low! && n.pages <= high!, 'pages'),
        ]);
      }
      for (const before of ['1980-01-01', '1990-01-01', '1970-01-01']) {
        const limit = `${before}T00:00:00.000Z`;
        cases.push([
          `/api/novels?publishedAt%5Bbefore%5D=${before}`,
          expected(NOVELS, (n) => n.publishedAt === null || n.publishedAt <= limit),
        ]);
      }
      // Each case twice, the second time after the others: the SQL of its shape is then the one kept.
      for (const [url, titlesExpected] of [...cases, ...cases.slice().reverse()]) {
        const answer = await titles(url);
        expect(answer.titles, url).toEqual(titlesExpected);
        expect(answer.total, url).toBe(titlesExpected.length);
      }
    });

    it('makes values that change the SQL shapes of their own: lists of other lengths, true and false, short searches', async () => {
      await seed();
      const cases: [string, string[]][] = [
        ['/api/novels?pages%5B%5D=264&pages%5B%5D=248', expected(NOVELS, (n) => [264, 248].includes(n.pages))],
        ['/api/novels?pages%5B%5D=345', expected(NOVELS, (n) => n.pages === 345)],
        [
          '/api/novels?pages%5B%5D=264&pages%5B%5D=248&pages%5B%5D=310',
          expected(NOVELS, (n) => [264, 248, 310].includes(n.pages)),
        ],
        ['/api/novels?exists%5BpublishedAt%5D=true', expected(NOVELS, (n) => n.publishedAt !== null)],
        ['/api/novels?exists%5BpublishedAt%5D=false', expected(NOVELS, (n) => n.publishedAt === null)],
        // Two characters: too short for the trigram index, a LIKE; five: the index.
        ['/api/novels?title=ed', expected(NOVELS, (n) => n.title.toLowerCase().includes('ed'))],
        ['/api/novels?title=dling', expected(NOVELS, (n) => n.title.toLowerCase().includes('dling'))],
        ['/api/novels?title=in', expected(NOVELS, (n) => n.title.toLowerCase().includes('in'))],
        ['/api/novels?title=kindr', expected(NOVELS, (n) => n.title.toLowerCase().includes('kindr'))],
      ];
      for (const [url, titlesExpected] of [...cases, ...cases.slice().reverse()]) {
        expect((await titles(url)).titles, url).toEqual(titlesExpected);
      }
    });

    it('binds the values of a raw condition, and answers each request of its shape right', async () => {
      await seed();
      for (const n of [8, 12, 4, 8, 30]) {
        const answer = await titles(`/api/novels?longerThan=${n}&order%5Btitle%5D=asc`);
        expect(answer.titles, String(n)).toEqual(expected(NOVELS, (novel) => novel.title.length > n, 'title'));
      }
    });

    it('keeps pages apart: the same filters on other pages and page sizes', async () => {
      await seed();
      const all = expected(NOVELS, () => true, 'title');
      for (const [page, size] of [
        [1, 3],
        [2, 3],
        [3, 3],
        [1, 5],
        [2, 5],
        [2, 3],
      ] as const) {
        const answer = await titles(`/api/novels?order%5Btitle%5D=asc&page=${page}&itemsPerPage=${size}`);
        expect(answer.titles, `page ${page} of ${size}`).toEqual(all.slice((page - 1) * size, page * size));
        expect(answer.total).toBe(NOVELS.length);
      }
    });

    it('leaves the data as it was after a refused filter value (400), and the next request of that shape still answers right', async () => {
      await seed();
      const bad = await call(app(), { method: 'GET', url: '/api/novels?pages%5Bgte%5D=many&order%5Bpages%5D=asc' });
      expect(bad.status).toBe(400);
      const answer = await titles('/api/novels?pages%5Bgte%5D=300&order%5Bpages%5D=asc');
      expect(answer.titles).toEqual(expected(NOVELS, (n) => n.pages >= 300, 'pages'));
      expect((await titles('/api/novels')).total).toBe(NOVELS.length);
    });
  },
);
