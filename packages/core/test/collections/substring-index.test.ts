/**
 * Search filters with `substringIndex`: a trigram index (SQLite FTS5, PostgreSQL pg_trgm) created by schema sync and by
 * a generated migration, kept in step with writes, read by searches — whose answers stay exactly those of the same
 * search without the index, for every strategy and for values the index cannot help with.
 */
import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, inject, it } from 'vitest';
import {
  buildMetadata,
  compare,
  defineFilter,
  defineResource,
  generateMigration,
  runMigrations,
  singleValue,
  type ResourceInput,
} from '@resource-api/core';
import { buildTestApp, injectJson, testDatabases } from '@resource-api/core/testing';
import { freshTarget, type MigrationTarget, on, startApp } from '../migrations/support.js';

const TITLES = [
  'Dune',
  'Children of Dune',
  'dune messiah',
  'The River Between',
  'A River Runs Through It',
  'Riverside 100% _pure_',
  'Émile à la rivière',
  'Moby Dick',
];
const STRATEGIES = { title: 'ipartial', code: 'partial', blurb: 'iword_start' } as const;

const writer = (substringIndex: boolean) =>
  defineResource({
    name: 'Writer',
    fields: { name: { type: 'string' } },
    filters: [{ type: 'search', properties: { name: 'ipartial' }, substringIndex }],
  });
const novel = (substringIndex: boolean) =>
  defineResource({
    name: 'Novel',
    fields: {
      title: { type: 'string' },
      code: { type: 'string' },
      blurb: { type: 'string', nullable: true },
      writer: { toOne: 'Writer', nullable: true },
    },
    filters: [
      { type: 'search', properties: { ...STRATEGIES, 'writer.name': 'ipartial' }, substringIndex },
      { type: 'order', properties: ['title'] },
    ],
    paginationItemsPerPage: 50,
  });
const indexed: ResourceInput[] = [writer(true), novel(true)];
const plain: ResourceInput[] = [writer(false), novel(false)];

const json = { 'content-type': 'application/ld+json' };
const titlesOf = (body: { 'hydra:member': { title: string }[] }) =>
  body['hydra:member'].map((item) => item.title).sort();

/** The SQL statements of one request. */
async function statementsOf(
  app: FastifyInstance,
  url: string,
): Promise<{ sql: string[]; body: { 'hydra:member': { title: string }[]; 'hydra:totalItems': number } }> {
  const sql: string[] = [];
  const listener = (query: { sql: string }) => sql.push(query.sql);
  const { knex } = app.resourceApi.database;
  knex.on('query', listener);
  try {
    const response = await injectJson(app, { method: 'GET', url });
    expect(response.status, url).toBe(200);
    return { sql, body: response.body };
  } finally {
    knex.removeListener('query', listener);
  }
}

const databases = testDatabases(inject('postgresUrl'), inject('mariadbUrl'));

describe.each(databases.filter((database) => database.name === 'mariadb'))('substring indexes on $name', (database) => {
  it('refuses a substringIndex at start-up, naming the column, as docs/database.md says', async () => {
    await expect(buildTestApp({ database, resources: [writer(true)] })).rejects.toThrow(
      /writer\.name: a substringIndex is not supported on MariaDB or MySQL, which have no trigram index/,
    );
  });
});

// MariaDB has no exact substring index: it refuses one at start-up (above).
describe.each(databases.filter((database) => database.name !== 'mariadb'))(
  'substring (trigram) indexes on $name',
  (database) => {
    let target: MigrationTarget;
    const apps: FastifyInstance[] = [];
    beforeEach(async () => {
      target = await freshTarget(database);
    });
    afterEach(async () => {
      for (const app of apps.splice(0)) await app.close();
      await target.drop();
    });
    const start = async (resources: ResourceInput[], schemaSync = true) => {
      const app = await startApp(target, resources, { schemaSync });
      apps.push(app);
      return app;
    };
    const postgres = database.name === 'postgres';

    async function seed(app: FastifyInstance) {
      await injectJson(app, { method: 'POST', url: '/api/writers', headers: json, payload: { name: 'Frank Herbert' } });
      await injectJson(app, {
        method: 'POST',
        url: '/api/writers',
        headers: json,
        payload: { name: 'Ngũgĩ wa Thiong’o' },
      });
      for (const [index, title] of TITLES.entries()) {
        const created = await injectJson(app, {
          method: 'POST',
          url: '/api/novels',
          headers: json,
          payload: {
            title,
            code: title.toUpperCase().slice(0, 4) + title.slice(4),
            blurb: `about ${title}`,
            writer: index % 2 === 0 ? '/api/writers/1' : '/api/writers/2',
          },
        });
        expect(created.status).toBe(201);
      }
    }

    const SEARCHES = [
      'title=dune',
      'title=DUNE',
      'title=river',
      'title=rivi',
      'title=du',
      'title=%25',
      'title=100%25%20_p',
      'title=_pure_',
      'title=%C3%A9mile',
      'code=CHIL',
      'code=chil',
      'code=DUNE',
      'blurb=river',
      'blurb=rive',
      'blurb=bout',
      'writer.name=herb',
      'writer.name=thiong',
      'title=dune&order%5Btitle%5D=desc',
      'title%5B%5D=dune&title%5B%5D=moby',
      'title=%22dune%22',
      'title=of%20d',
      'title=children%20of%20dune',
      // SQLite folds A-Z only (LIKE, lower()): É and é are different letters there, as the index must keep them.
      'title=%C3%89MILE',
      'title=%C3%A9MILE',
      'title=RIVI%C3%88RE',
      'title=RIVI%C3%A8RE',
      'title=dune&code=CHIL',
      'title=river&page=2',
    ];

    it('answers every search exactly as without the index, and reads the index for values of 3 characters or more', async () => {
      const withIndex = await start(indexed);
      await seed(withIndex);
      // The same rows, served without the index, from the same database: the reference answers.
      const without = await start(plain, false);
      for (const query of SEARCHES) {
        const expected = await statementsOf(without, `/api/novels?${query}`);
        const actual = await statementsOf(withIndex, `/api/novels?${query}`);
        expect(titlesOf(actual.body), query).toEqual(titlesOf(expected.body));
        expect(actual.body['hydra:totalItems'], query).toBe(expected.body['hydra:totalItems']);
        // SQLite reads the FTS5 table; PostgreSQL's planner picks the GIN index by itself, the SQL is the same.
        if (!postgres && query === 'title=river') expect(actual.sql.join('\n')).toContain('novel_title_substring');
        if (!postgres && query === 'title=du') expect(actual.sql.join('\n')).not.toContain('novel_title_substring');
      }
      expect(titlesOf((await statementsOf(withIndex, '/api/novels?title=river')).body)).toEqual([
        'A River Runs Through It',
        'Riverside 100% _pure_',
        'The River Between',
      ]);
    });

    it('counts a lone search from the index, and reads a page of dense matches by walking the order, of sparse ones from the index', async () => {
      const withIndex = await start(indexed);
      // 300 novels: "river" in 2 of 3 titles (dense), "lake" in 3 (sparse).
      const rows = Array.from({ length: 300 }, (_, i) => ({
        title: `${i % 3 === 0 ? 'Lowland' : 'River'} tale ${String(i).padStart(3, '0')}${i % 100 === 7 ? ' by the Lake' : ''}`,
        code: `C${i}`,
      }));
      for (let i = 0; i < rows.length; i += 100)
        await withIndex.resourceApi.database.knex('novel').insert(rows.slice(i, i + 100));
      const without = await start(plain, false);
      const read = async (query: string) => {
        const expected = await statementsOf(without, `/api/novels?${query}`);
        const actual = await statementsOf(withIndex, `/api/novels?${query}`);
        expect(
          actual.body['hydra:member'].map((item) => item.title),
          query,
        ).toEqual(expected.body['hydra:member'].map((item) => item.title));
        expect(actual.body['hydra:totalItems'], query).toBe(expected.body['hydra:totalItems']);
        const sql = actual.sql.map((statement) => statement.replace(/[`"]/g, ''));
        return {
          sql,
          total: actual.body['hydra:totalItems'],
          count: sql.find(
            (statement) => statement.startsWith('select (select count(*)') || statement.startsWith('select count(*)'),
          ),
          page: sql.find((statement) => /^select .*t0\.title/.test(statement)),
        };
      };
      const indexCount =
        /^select \(select count\(\*\) from novel_title_substring where novel_title_substring MATCH \?\) as n, \(select max\(id\) from novel\) as size$/;
      const indexCountInPage =
        '(select count(*) as n from novel_title_substring where novel_title_substring MATCH ?) as resource_api_total';
      for (const query of [
        'title=river&order%5Btitle%5D=desc',
        'title=RIVER&page=2',
        'title=lake&order%5Btitle%5D=desc',
        'title=lake&page=1',
        'title=river&page=99',
        'title=river&code=C1',
        'title=river&code=C1&order%5Btitle%5D=desc',
        'title=zzz',
      ]) {
        const { sql, count, page } = await read(query);
        if (postgres) continue;
        if (query === 'title=river&order%5Btitle%5D=desc') {
          // The first read of a search: the count and the table's size (which the page's plan weighs it against) in one
          // statement, then the page, walking the title order (dense matches).
          expect(sql, query).toHaveLength(2);
          expect(count, query).toMatch(indexCount);
          expect(page, query).not.toContain('novel_title_substring');
          expect(page, query).toContain('LIKE');
        }
        if (query === 'title=RIVER&page=2') {
          // The same search (the index holds the titles lowered): its last count chose the plan, and the count from the
          // index comes in the page's statement.
          expect(sql, query).toHaveLength(1);
          expect(page, query).toContain(indexCountInPage);
          expect(page, query).toContain('LIKE');
        }
        if (query.startsWith('title=lake')) {
          expect(page, query).toContain('novel_title_substring WHERE novel_title_substring MATCH');
          expect(page, query).not.toContain('LIKE');
          expect(sql, query).toHaveLength(query === 'title=lake&page=1' ? 1 : 2);
        }
        // Past the last match, or no match at all: the count says so, and no page is read.
        if (query === 'title=river&page=99' || query === 'title=zzz') expect(page, query).toBeUndefined();
        // With another condition, the count reads the table (and the index for the search); read again, in the page.
        if (query === 'title=river&code=C1')
          expect(count, query).toMatch(/^select count\(\*\) as n from novel as t0 where .*novel_title_substring/);
        if (query === 'title=river&code=C1&order%5Btitle%5D=desc') {
          expect(sql, query).toHaveLength(1);
          expect(page, query).toMatch(
            /\(select count\(\*\) as n from novel as t0 where .*novel_title_substring.*\) as resource_api_total/,
          );
        }
      }
      expect((await statementsOf(withIndex, '/api/novels?title=lake')).body['hydra:totalItems']).toBe(3);
      // The kept count is a plan's guess, never the answer: after most river titles are gone, the next read chooses
      // the walk for dense matches it no longer has, and still answers exactly; the one after reads the index.
      await withIndex.resourceApi.database
        .knex('novel')
        .where('title', 'like', 'River tale%')
        .whereNot('title', 'like', '%Lake%')
        .delete();
      const stale = await read('title=river&order%5Btitle%5D=desc');
      if (!postgres) {
        expect(stale.sql).toHaveLength(1);
        expect(stale.page).toContain('LIKE');
      }
      const fresh = await read('title=river&order%5Btitle%5D=desc');
      if (!postgres) {
        expect(fresh.sql).toHaveLength(1);
        expect(fresh.page).toContain('novel_title_substring WHERE novel_title_substring MATCH');
      }
      expect([stale.total, fresh.total]).toEqual([2, 2]);
    });

    it('keeps the last count of at most 1,000 searches: past them, a search counts first again', async () => {
      const app = await start(indexed);
      const rows = Array.from({ length: 300 }, (_, i) => ({
        title: `River tale ${String(i).padStart(3, '0')}`,
        code: `C${i}`,
      }));
      for (let i = 0; i < rows.length; i += 100)
        await app.resourceApi.database.knex('novel').insert(rows.slice(i, i + 100));
      const statements = async (search: string) => {
        const read = await statementsOf(app, `/api/novels?title=${encodeURIComponent(search)}`);
        expect(read.body['hydra:totalItems'], search).toBeGreaterThan(0);
        return read.sql.length;
      };
      // PostgreSQL's planner reads pg_trgm by itself: every read is the page with its count.
      const countingFirst = postgres ? 1 : 2;
      expect(await statements('river')).toBe(countingFirst);
      expect(await statements('river')).toBe(1);
      // 999 other searches, each matching (one title or more): "river" is still kept, the thousandth forgets all.
      const others = [
        ...['tale ', 'ale ', 'le '].flatMap((prefix) => rows.map((_, i) => `${prefix}${String(i).padStart(3, '0')}`)),
        ...rows.slice(0, 99).map((_, i) => `e ${String(i).padStart(3, '0')}`),
      ];
      expect(new Set(others).size).toBe(999);
      for (const search of others) await statements(search);
      expect(await statements('river')).toBe(1);
      await statements('e 099');
      expect(await statements('river')).toBe(countingFirst);
      // A kept count chooses the plan of the next 100 reads; the one after them counts first again.
      for (let read = 0; read < 100; read++) expect(await statements('river')).toBe(1);
      expect(await statements('river')).toBe(countingFirst);
      expect(await statements('river')).toBe(1);
      // A search whose key (its count's SQL and values) is longer than 2,048 characters is never kept: each of its reads
      // counts first (with another condition than the search alone, the count and the table's size are two statements).
      const long = `title%5B%5D=river&title%5B%5D=${'x'.repeat(2100)}`;
      for (let read = 0; read < 2; read++) {
        const { sql, body } = await statementsOf(app, `/api/novels?${long}`);
        expect(body['hydra:totalItems']).toBe(300);
        expect(sql).toHaveLength(postgres ? 1 : 3);
      }
      const short = 'title%5B%5D=river&title%5B%5D=lake';
      expect((await statementsOf(app, `/api/novels?${short}`)).sql).toHaveLength(postgres ? 1 : 3);
      expect((await statementsOf(app, `/api/novels?${short}`)).sql).toHaveLength(1);
    });

    it('keeps the count of a search whose other values are BigInts', async () => {
      // A custom filter binding a BigInt (which JSON refuses) beside a search on the index.
      const fromId = defineFilter({
        describe: () => [
          {
            variable: 'fromId',
            property: null,
            required: false,
            schema: { type: 'integer' },
            isCollection: false,
            description: 'Ids from n.',
          },
        ],
        parse: (query) => {
          const value = singleValue(query, 'fromId');
          return value === undefined ? undefined : BigInt(value);
        },
        conditions: (n: bigint) => [compare('id', '>=', n)],
      });
      const base = novel(true);
      const app = await start([writer(true), { ...base, filters: [...(base.filters ?? []), fromId] }]);
      await seed(app);
      for (let read = 0; read < 2; read++) {
        const { sql, body } = await statementsOf(app, '/api/novels?title=river&fromId=5');
        expect(titlesOf(body)).toEqual(['A River Runs Through It', 'Riverside 100% _pure_']);
        expect(body['hydra:totalItems']).toBe(2);
        if (!postgres) expect(sql).toHaveLength(read === 0 ? 3 : 1);
      }
    });

    it('keeps the index in step with creates, updates and deletes', async () => {
      const app = await start(indexed);
      await seed(app);
      const search = async (term: string) => titlesOf((await statementsOf(app, `/api/novels?title=${term}`)).body);
      expect(
        (
          await injectJson(app, {
            method: 'PATCH',
            url: '/api/novels/4',
            headers: { 'content-type': 'application/merge-patch+json' },
            payload: { title: 'The Lake Between' },
          })
        ).status,
      ).toBe(200);
      expect(await search('river')).toEqual(['A River Runs Through It', 'Riverside 100% _pure_']);
      expect(await search('lake')).toEqual(['The Lake Between']);
      expect((await injectJson(app, { method: 'DELETE', url: '/api/novels/5' })).status).toBe(204);
      expect(await search('river')).toEqual(['Riverside 100% _pure_']);
      expect(
        (
          await injectJson(app, {
            method: 'POST',
            url: '/api/novels',
            headers: json,
            payload: { title: 'Riverrun', code: 'RIVE' },
          })
        ).status,
      ).toBe(201);
      expect(await search('river')).toEqual(['Riverrun', 'Riverside 100% _pure_']);
    });

    it('is added to a table with rows by schema sync and by a generated migration, which indexes the rows already there', async () => {
      const before = await start(plain);
      await seed(before);
      const file = await generateMigration({ resources: indexed, ...on(target) });
      const source = readFileSync(file!, 'utf8');
      expect(source).toContain(postgres ? 'gin_trgm_ops' : 'using fts5(');
      expect(source).toContain(postgres ? 'drop index if exists' : 'drop table if exists');
      await runMigrations(on(target));
      // Production-like start: sync off; the migration made the index and filled it.
      const after = await start(indexed, false);
      expect(titlesOf((await statementsOf(after, '/api/novels?title=river')).body)).toEqual([
        'A River Runs Through It',
        'Riverside 100% _pure_',
        'The River Between',
      ]);
      expect(await generateMigration({ resources: indexed, ...on(target) })).toBeNull();
    });

    it('refuses a production start on a database that lacks the index', async () => {
      await (await start(plain)).close();
      apps.length = 0;
      await expect(start(indexed, false)).rejects.toThrow(/trigram index novel_title_substring/);
    });
  },
);

describe('substringIndex declarations', () => {
  it('must be a boolean', () => {
    const Bad = defineResource({
      name: 'Bad',
      fields: { title: { type: 'string' } },
      filters: [{ type: 'search', properties: { title: 'partial' }, substringIndex: 'yes' as never }],
    });
    expect(() => buildMetadata({ resources: [Bad] })).toThrow(
      'Resource "Bad", search filter: "substringIndex" must be true or false.',
    );
  });
});
