/**
 * PUT replaces the item of its path: an `@id` in the body must be that item's IRI, as in API Platform; another item's
 * or another type's is a 400 and changes nothing.
 */
import { describe, expect, it } from 'vitest';
import { call, databases, useBookshop } from './support.js';

describe.each(databases)('PUT with a body @id on $name', (database) => {
  const shop = useBookshop(database);
  const req = (method: string, url: string, payload?: object) =>
    call(shop().app, { method: method as never, url, ...(payload ? { payload } : {}) });

  it('refuses a PUT whose body @id names another item (400) and changes nothing', async () => {
    expect((await req('POST', '/api/books', { title: 'Dune', author: { name: 'Frank Herbert' } })).status).toBe(201);
    expect((await req('POST', '/api/books', { title: 'Emma', author: { name: 'Jane Austen' } })).status).toBe(201);

    const response = await req('PUT', '/api/books/1', {
      '@id': '/api/books/2',
      title: 'Changed',
      author: '/api/authors/1',
    });
    expect(response.status).toBe(400);
    expect((await req('GET', '/api/books/1')).body.title).toBe('Dune');
    expect((await req('GET', '/api/books/2')).body.title).toBe('Emma');
  });

  it('refuses a PUT whose body @id is an item of another type (400)', async () => {
    expect((await req('POST', '/api/books', { title: 'Dune', author: { name: 'Frank Herbert' } })).status).toBe(201);
    const response = await req('PUT', '/api/books/1', {
      '@id': '/api/authors/1',
      title: 'Changed',
      author: '/api/authors/1',
    });
    expect(response.status).toBe(400);
    expect((await req('GET', '/api/books/1')).body.title).toBe('Dune');
  });

  it('accepts a PUT whose body @id is the item of the URI', async () => {
    expect((await req('POST', '/api/books', { title: 'Dune', author: { name: 'Frank Herbert' } })).status).toBe(201);
    const response = await req('PUT', '/api/books/1', {
      '@id': '/api/books/1',
      title: 'Changed',
      author: '/api/authors/1',
    });
    expect(response.status).toBe(200);
    expect(response.body.title).toBe('Changed');
  });
});
