/**
 * Filters as data: custom filters returning conditions (`compare`, `isIn`, `match`, `exists`, `allOf`, `anyOf`, `not`,
 * `raw`, `orderBy`) through relation paths, with the meaning docs/collections.md gives them (the conditions of one group
 * on one to-many path are met by the same related item; `not` through a to-many relation keeps the items none of whose
 * related items meet it); a provider of its own that reads the same conditions without SQL; and the refusal, at start,
 * of a filter still written with `apply(query)`. On SQLite and PostgreSQL.
 */
import { describe, expect, inject, it } from 'vitest';
import {
  allOf,
  anyOf,
  collectionQuery,
  compare,
  type Condition,
  defineFilter,
  defineResource,
  exists,
  isIn,
  match,
  not,
  orderBy,
  raw,
  singleValue,
  type Entity,
} from '@resource-api/core';
import { buildTestApp, testDatabases } from '@resource-api/core/testing';
import { call, useApp } from '../helpers.js';

/** A filter named `name` whose value picks one of `cases` (the conditions to apply). */
function casesFilter(name: string, cases: Record<string, Condition[] | ReturnType<typeof orderBy>[]>) {
  return defineFilter({
    describe: () => [
      {
        variable: name,
        property: null,
        required: false,
        schema: { type: 'string', enum: Object.keys(cases) },
        isCollection: false,
        description: 'A case.',
      },
    ],
    parse: (query) => singleValue(query, name),
    conditions: (value: string) => cases[value] ?? [],
  });
}

const Writer = defineResource({
  name: 'Writer',
  fields: { name: { type: 'string' }, books: { toMany: 'Volume', mappedBy: 'writer' } },
  filters: [
    casesFilter('case', {
      // One book of the 20th century: the two bounds hold for the same book.
      century: [allOf(compare('books.year', '>', 1900), compare('books.year', '<', 2000))],
      // Two conditions on the path, each on its own: some book after 1900 and some book before 2000.
      eitherBound: [compare('books.year', '>', 1900), compare('books.year', '<', 2000)],
      noDune: [not(match('books.title', { value: 'dune', anchor: 'contains', caseSensitive: false }))],
      noBooks: [exists('books', false)],
      someBooks: [exists('books')],
      shortName: [raw('length({name}) < ?', [6])],
      named: [isIn('name', ['Ann', 'Cleo'])],
      nobody: [isIn('name', [])],
      annOrOld: [anyOf(compare('name', '=', 'Ann'), compare('books.year', '<', 1850))],
    }),
    casesFilter('sort', { nameDesc: [orderBy('name', 'desc')] }),
  ],
});
const Volume = defineResource({
  name: 'Volume',
  fields: { title: { type: 'string' }, year: { type: 'integer' }, writer: { toOne: 'Writer', nullable: true } },
});

const WRITERS: Record<string, { title: string; year: number }[]> = {
  Ann: [{ title: 'Dune Road', year: 1965 }],
  Bernard: [
    { title: 'Early', year: 1800 },
    { title: 'Late', year: 2100 },
  ],
  Cleo: [],
  Dmitri: [
    { title: 'Steppe', year: 1990 },
    { title: 'Dunes', year: 2005 },
  ],
};

describe.each(testDatabases(inject('postgresUrl'), inject('mariadbUrl')))('conditions on $name', (database) => {
  const app = useApp(database, { resources: [Writer, Volume] });

  async function seed(): Promise<void> {
    for (const [name, books] of Object.entries(WRITERS)) {
      const writer = await call(app(), { method: 'POST', url: '/api/writers', payload: { name } });
      expect(writer.status).toBe(201);
      for (const book of books)
        expect(
          (await call(app(), { method: 'POST', url: '/api/volumes', payload: { ...book, writer: writer.body['@id'] } }))
            .status,
        ).toBe(201);
    }
  }

  async function names(query: string): Promise<{ names: string[]; total: number }> {
    const response = await call(app(), { method: 'GET', url: `/api/writers?${query}` });
    expect(response.status, query).toBe(200);
    return {
      names: response.body['hydra:member'].map((writer: { name: string }) => writer.name),
      total: response.body['hydra:totalItems'],
    };
  }

  it('gives each condition through relations the meaning the docs give it, the count with it', async () => {
    await seed();
    const expected: Record<string, string[]> = {
      century: ['Ann', 'Dmitri'],
      eitherBound: ['Ann', 'Bernard', 'Dmitri'],
      noDune: ['Bernard', 'Cleo'],
      noBooks: ['Cleo'],
      someBooks: ['Ann', 'Bernard', 'Dmitri'],
      shortName: ['Ann', 'Cleo'],
      named: ['Ann', 'Cleo'],
      nobody: [],
      annOrOld: ['Ann', 'Bernard'],
    };
    for (const [name, writers] of Object.entries(expected)) {
      // Twice: the second run takes the statement its shape prepared.
      for (let run = 0; run < 2; run++)
        expect(await names(`case=${name}`), name).toEqual({ names: writers, total: writers.length });
    }
    expect((await names('case=century&sort=nameDesc')).names).toEqual(['Dmitri', 'Ann']);
  });

  it('refuses a case the filter does not know with a 400 and no read', async () => {
    await seed();
    const response = await call(app(), { method: 'GET', url: '/api/writers?case=a&case=b' });
    expect(response.status).toBe(400);
    expect((await names('')).total).toBe(4);
  });
});

describe('a provider of its own reads the same conditions', () => {
  /** Reads the conditions without SQL: a store in memory. */
  function meets(item: Entity, condition: Condition): boolean {
    switch (condition.kind) {
      case 'compare':
        return condition.operator === '='
          ? item[condition.path] === condition.value
          : (item[condition.path] as number) > (condition.value as number);
      case 'match':
        return String(item[condition.path]).toLowerCase().includes(condition.pattern.value.toLowerCase());
      case 'any':
        return condition.conditions.some((member) => meets(item, member));
      default:
        throw new Error(`not read here: ${condition.kind}`);
    }
  }
  const ITEMS: Entity[] = [
    { id: 1, name: 'Teapot', price: 12 },
    { id: 2, name: 'Tea cup', price: 4 },
    { id: 3, name: 'Kettle', price: 30 },
  ];
  const Product = defineResource({
    name: 'Product',
    fields: { name: { type: 'string' }, price: { type: 'integer' } },
    operations: ['getCollection'],
    paginationEnabled: false,
    filters: [
      { type: 'search', properties: { name: 'ipartial' } },
      { type: 'range', properties: ['price'] },
    ],
    provider: {
      async provide(context) {
        const { conditions } = collectionQuery(context);
        const items = ITEMS.filter((item) =>
          conditions.every((condition) =>
            condition.kind === 'all'
              ? condition.conditions.every((member) => meets(item, member))
              : meets(item, condition),
          ),
        );
        return { items, totalItems: items.length };
      },
    },
  });

  it('answers the built-in filters from the conditions they return', async () => {
    const app = await buildTestApp({ database: testDatabases(undefined)[0]!, resources: [Product] });
    try {
      const names = async (query: string) =>
        (await call(app, { method: 'GET', url: `/api/products?${query}` })).body['hydra:member'].map(
          (p: { name: string }) => p.name,
        );
      expect(await names('name=TEA')).toEqual(['Teapot', 'Tea cup']);
      expect(await names('name=tea&price%5Bgt%5D=5')).toEqual(['Teapot']);
      expect(await names('')).toEqual(['Teapot', 'Tea cup', 'Kettle']);
    } finally {
      await app.close();
    }
  });
});

describe('a filter still written with apply(query)', () => {
  it('stops start-up with a message that says what to write instead', async () => {
    const old = { describe: () => [], parse: () => undefined, apply: () => undefined };
    const Thing = defineResource({ name: 'Thing', fields: { name: { type: 'string' } }, filters: [old as never] });
    await expect(buildTestApp({ database: testDatabases(undefined)[0]!, resources: [Thing] })).rejects.toThrow(
      /returns its conditions now \(conditions\(parsed\) instead of apply\(query\)\)/,
    );
  });
});
