/** Collection pages: 10 items by default, page and itemsPerPage from the client, hydra:view links, 400s. */
import { describe, expect, inject, it } from 'vitest';
import { defineResource } from '@resource-api/core';
import { buildTestApp, testDatabases } from '@resource-api/core/testing';
import { call } from '../helpers.js';

const Item = defineResource({ name: 'Item', fields: { n: { type: 'integer' } } });

describe.each(testDatabases(inject('postgresUrl'), inject('mariadbUrl')))('pagination on $name', (database) => {
  it('pages by 10 with first/last/previous/next links that keep other parameters', async () => {
    const app = await buildTestApp({ database, resources: [Item] });
    await app.resourceApi.database.knex('item').insert(Array.from({ length: 25 }, (_, i) => ({ n: i + 1 })));
    const first = await call(app, { method: 'GET', url: '/api/items' });
    expect(first.body['hydra:totalItems']).toBe(25);
    expect(first.body['hydra:member'].map((m: { n: number }) => m.n)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(first.body['hydra:view']).toEqual({
      '@id': '/api/items?page=1',
      '@type': 'hydra:PartialCollectionView',
      'hydra:first': '/api/items?page=1',
      'hydra:last': '/api/items?page=3',
      'hydra:next': '/api/items?page=2',
    });
    const second = await call(app, { method: 'GET', url: '/api/items?itemsPerPage=4&page=2&foo=a%20b' });
    expect(second.body['hydra:member'].map((m: { n: number }) => m.n)).toEqual([5, 6, 7, 8]);
    expect(second.body['hydra:view']).toEqual({
      '@id': '/api/items?itemsPerPage=4&foo=a%20b&page=2',
      '@type': 'hydra:PartialCollectionView',
      'hydra:first': '/api/items?itemsPerPage=4&foo=a%20b&page=1',
      'hydra:last': '/api/items?itemsPerPage=4&foo=a%20b&page=7',
      'hydra:previous': '/api/items?itemsPerPage=4&foo=a%20b&page=1',
      'hydra:next': '/api/items?itemsPerPage=4&foo=a%20b&page=3',
    });
    const past = await call(app, { method: 'GET', url: '/api/items?page=9' });
    expect(past.status).toBe(200);
    expect(past.body['hydra:member']).toEqual([]);
    expect(past.body['hydra:totalItems']).toBe(25);
    expect(past.body['hydra:view']).not.toHaveProperty('hydra:next');
    const clamped = await call(app, { method: 'GET', url: '/api/items?itemsPerPage=1000' });
    expect(clamped.body['hydra:member']).toHaveLength(25);
    const zero = await call(app, { method: 'GET', url: '/api/items?itemsPerPage=0' });
    expect(zero.body['hydra:member']).toEqual([]);
    expect(zero.body['hydra:totalItems']).toBe(25);
    const all = await call(app, { method: 'GET', url: '/api/items?pagination=false' });
    expect(all.body['hydra:member']).toHaveLength(25);
    expect(all.body).not.toHaveProperty('hydra:view');
    await app.close();
  });

  it('has no hydra:view for a single unfiltered page', async () => {
    const app = await buildTestApp({ database, resources: [Item] });
    await call(app, { method: 'POST', url: '/api/items', payload: { n: 1 } });
    expect((await call(app, { method: 'GET', url: '/api/items' })).body).not.toHaveProperty('hydra:view');
    await app.close();
  });

  it('answers 400 naming the parameter for invalid page values', async () => {
    const app = await buildTestApp({ database, resources: [Item] });
    const cases: [string, string][] = [
      ['page=0', 'Page should not be less than 1 (query parameter "page").'],
      ['page=-2', 'Page should not be less than 1 (query parameter "page").'],
      ['page=abc', 'Query parameter "page" must be an integer, "abc" given.'],
      ['itemsPerPage=-1', 'Limit should not be less than 0 (query parameter "itemsPerPage").'],
      ['itemsPerPage=1.5', 'Query parameter "itemsPerPage" must be an integer, "1.5" given.'],
      ['pagination=maybe', 'Query parameter "pagination" must be "true" or "false", "maybe" given.'],
      ['page=1&page=2', 'Query parameter "page" must be given once.'],
      ['page=99999999999999999', 'Query parameter "page" is too large.'],
      ['page=9007199254740991', 'Query parameter "page" is too large.'],
    ];
    for (const [query, detail] of cases) {
      const response = await call(app, { method: 'GET', url: `/api/items?${query}` });
      expect(response.status, query).toBe(400);
      expect(response.body.detail, query).toBe(detail);
    }
    await app.close();
  });
});
