/** Pagination settings resolved global → resource → operation → client; partial and cursor pagination. */
import { describe, expect, inject, it } from 'vitest';
import { buildMetadata, defineResource } from '@resource-api/core';
import { buildTestApp, testDatabases } from '@resource-api/core/testing';
import { call } from '../helpers.js';

const fields = { n: { type: 'integer' } } as const;
const seed = async (app: Awaited<ReturnType<typeof buildTestApp>>, table: string, count: number) =>
  app.resourceApi.database.knex(table).insert(Array.from({ length: count }, (_, i) => ({ n: i + 1 })));
const ns = (body: { 'hydra:member': { n: number }[] }) => body['hydra:member'].map((m) => m.n);

describe('resolving pagination settings', () => {
  it('cascades global → resource → operation', () => {
    const registry = buildMetadata({
      pagination: { itemsPerPage: 20, maximumItemsPerPage: 200, clientEnabled: false },
      resources: [
        defineResource({ name: 'Plain', fields }),
        defineResource({ name: 'Product', fields, paginationItemsPerPage: 5, paginationMaximumItemsPerPage: 50 }),
        defineResource({
          name: 'Log',
          fields,
          paginationItemsPerPage: 5,
          operations: [{ kind: 'getCollection', paginationItemsPerPage: 7, paginationClientEnabled: true }],
        }),
      ],
    });
    const pagination = (name: string) =>
      registry.resource(name).operations.find((o) => o.kind === 'getCollection')!.pagination;
    expect(pagination('Plain')).toMatchObject({
      itemsPerPage: 20,
      maximumItemsPerPage: 200,
      clientEnabled: false,
      enabled: true,
      cursor: null,
    });
    expect(pagination('Product')).toMatchObject({ itemsPerPage: 5, maximumItemsPerPage: 50, clientEnabled: false });
    expect(pagination('Log')).toMatchObject({ itemsPerPage: 7, maximumItemsPerPage: 200, clientEnabled: true });
    expect(registry.resource('Plain').operations.find((o) => o.kind === 'get')!.pagination).toBeNull();
  });

  it('refuses impossible settings at start-up', () => {
    expect(() =>
      buildMetadata({ resources: [defineResource({ name: 'A', fields, paginationItemsPerPage: 0 })] }),
    ).toThrow('Resource "A", operation "getCollection": pagination itemsPerPage must be a positive integer, 0 given.');
    expect(() =>
      buildMetadata({
        resources: [
          defineResource({ name: 'A', fields, paginationItemsPerPage: 60, paginationMaximumItemsPerPage: 50 }),
        ],
      }),
    ).toThrow('is above maximumItemsPerPage (50)');
    expect(() =>
      buildMetadata({
        resources: [defineResource({ name: 'A', fields, operations: [{ kind: 'get', paginationItemz: 1 } as never] })],
      }),
    ).toThrow('unknown option "paginationItemz". Did you mean "paginationItemsPerPage"?');
  });
});

describe.each(testDatabases(inject('postgresUrl'), inject('mariadbUrl')))('pagination modes on $name', (database) => {
  it('applies a resource override and clamps to its maximum', async () => {
    const Product = defineResource({
      name: 'Product',
      fields,
      paginationItemsPerPage: 5,
      paginationMaximumItemsPerPage: 50,
    });
    const app = await buildTestApp({ database, resources: [Product] });
    await seed(app, 'product', 60);
    expect(ns((await call(app, { method: 'GET', url: '/api/products' })).body)).toEqual([1, 2, 3, 4, 5]);
    expect(
      (await call(app, { method: 'GET', url: '/api/products?itemsPerPage=80' })).body['hydra:member'],
    ).toHaveLength(50);
    await app.close();
  });

  it('reads a page and its total in one statement, and still knows the total of an empty page or one past the end', async () => {
    const Item = defineResource({ name: 'Item', fields, filters: [{ type: 'range', properties: ['n'] }] });
    const app = await buildTestApp({ database, resources: [Item] });
    const statements: string[] = [];
    app.resourceApi.database.knex.on('query', (query: { sql: string }) => statements.push(query.sql));
    const page = async (url: string) => {
      statements.length = 0;
      const { status, body } = await call(app, { method: 'GET', url });
      expect(status, url).toBe(200);
      return { ns: ns(body), total: body['hydra:totalItems'] as number, statements: statements.length };
    };
    expect(await page('/api/items')).toEqual({ ns: [], total: 0, statements: 1 });
    await seed(app, 'item', 25);
    expect(await page('/api/items?page=3')).toEqual({ ns: [21, 22, 23, 24, 25], total: 25, statements: 1 });
    expect(await page('/api/items?n%5Bgt%5D=12&page=2')).toEqual({ ns: [23, 24, 25], total: 13, statements: 1 });
    expect(await page('/api/items?n%5Bgt%5D=99')).toEqual({ ns: [], total: 0, statements: 1 });
    // Past the last page: no row carries the total, so the count is read on its own.
    expect(await page('/api/items?page=9')).toEqual({ ns: [], total: 25, statements: 2 });
    expect(await page('/api/items?n%5Bgt%5D=12&page=5')).toEqual({ ns: [], total: 13, statements: 2 });
    expect(await page('/api/items?itemsPerPage=0')).toEqual({ ns: [], total: 25, statements: 1 });
    await app.close();
  });

  it('ignores client parameters the settings do not allow', async () => {
    const Log = defineResource({
      name: 'Log',
      fields,
      paginationClientEnabled: false,
      paginationClientItemsPerPage: false,
    });
    const app = await buildTestApp({ database, resources: [Log] });
    await seed(app, 'log', 15);
    const response = await call(app, { method: 'GET', url: '/api/logs?pagination=false&itemsPerPage=2' });
    expect(response.body['hydra:member']).toHaveLength(10);
    expect(response.body['hydra:view']['hydra:last']).toBe('/api/logs?pagination=false&itemsPerPage=2&page=2');
    await app.close();
  });

  it('turns pagination off for a resource', async () => {
    const All = defineResource({ name: 'Everything', fields, paginationEnabled: false });
    const app = await buildTestApp({ database, resources: [All] });
    await seed(app, 'everything', 25);
    const response = await call(app, { method: 'GET', url: '/api/everythings' });
    expect(response.body['hydra:member']).toHaveLength(25);
    expect(response.body['hydra:totalItems']).toBe(25);
    expect(response.body).not.toHaveProperty('hydra:view');
    await app.close();
  });

  it('pages without a count in partial mode: no totalItems, no first/last, next only when more follow', async () => {
    const Event = defineResource({ name: 'Event', fields, paginationPartial: true, paginationItemsPerPage: 4 });
    const app = await buildTestApp({ database, resources: [Event] });
    await seed(app, 'event', 8);
    const queries: string[] = [];
    app.resourceApi.database.knex.on('query', (q: { sql: string }) => queries.push(q.sql));
    const first = await call(app, { method: 'GET', url: '/api/events' });
    expect(queries.some((sql) => /count\(/i.test(sql))).toBe(false);
    expect(first.body).not.toHaveProperty('hydra:totalItems');
    expect(ns(first.body)).toEqual([1, 2, 3, 4]);
    expect(first.body['hydra:view']).toEqual({
      '@id': '/api/events?page=1',
      '@type': 'hydra:PartialCollectionView',
      'hydra:next': '/api/events?page=2',
    });
    const second = await call(app, { method: 'GET', url: '/api/events?page=2' });
    expect(ns(second.body)).toEqual([5, 6, 7, 8]);
    expect(second.body['hydra:view']).toEqual({
      '@id': '/api/events?page=2',
      '@type': 'hydra:PartialCollectionView',
      'hydra:previous': '/api/events?page=1',
    });
    await app.close();
  });

  it('lets a client ask for partial pagination when allowed', async () => {
    const Event = defineResource({ name: 'Event', fields, paginationClientPartial: true });
    const app = await buildTestApp({ database, resources: [Event] });
    await seed(app, 'event', 3);
    expect((await call(app, { method: 'GET', url: '/api/events?partial=true' })).body).not.toHaveProperty(
      'hydra:totalItems',
    );
    expect((await call(app, { method: 'GET', url: '/api/events' })).body['hydra:totalItems']).toBe(3);
    await app.close();
  });

  it('pages by cursor on the id, forwards and backwards, with filters kept in the links', async () => {
    const Entry = defineResource({
      name: 'Entry',
      fields,
      paginationViaCursor: { direction: 'desc' },
      paginationItemsPerPage: 3,
      filters: [{ type: 'range', properties: ['n'] }],
    });
    const app = await buildTestApp({ database, resources: [Entry] });
    await seed(app, 'entry', 10);
    const first = await call(app, { method: 'GET', url: '/api/entries?n[gte]=2' });
    expect(ns(first.body)).toEqual([10, 9, 8]);
    expect(first.body).not.toHaveProperty('hydra:totalItems');
    expect(first.body['hydra:view']).toEqual({
      '@id': '/api/entries?n%5Bgte%5D=2',
      '@type': 'hydra:PartialCollectionView',
      'hydra:next': '/api/entries?n%5Bgte%5D=2&id%5Blt%5D=8',
    });
    const second = await call(app, { method: 'GET', url: '/api/entries?n%5Bgte%5D=2&id%5Blt%5D=8' });
    expect(ns(second.body)).toEqual([7, 6, 5]);
    expect(second.body['hydra:view']).toEqual({
      '@id': '/api/entries?n%5Bgte%5D=2&id%5Blt%5D=8',
      '@type': 'hydra:PartialCollectionView',
      'hydra:previous': '/api/entries?n%5Bgte%5D=2&id%5Bgt%5D=7',
      'hydra:next': '/api/entries?n%5Bgte%5D=2&id%5Blt%5D=5',
    });
    const last = await call(app, { method: 'GET', url: '/api/entries?n[gte]=2&id[lt]=5' });
    expect(ns(last.body)).toEqual([4, 3, 2]);
    expect(last.body['hydra:view']).not.toHaveProperty('hydra:next');
    const back = await call(app, { method: 'GET', url: '/api/entries?n[gte]=2&id[gt]=7' });
    expect(ns(back.body)).toEqual([10, 9, 8]);
    expect(back.body['hydra:view']).toEqual({
      '@id': '/api/entries?n%5Bgte%5D=2&id%5Bgt%5D=7',
      '@type': 'hydra:PartialCollectionView',
      'hydra:next': '/api/entries?n%5Bgte%5D=2&id%5Blt%5D=8',
    });
    const bad = await call(app, { method: 'GET', url: '/api/entries?id[lt]=abc' });
    expect(bad.status).toBe(400);
    await app.close();
  });
});
