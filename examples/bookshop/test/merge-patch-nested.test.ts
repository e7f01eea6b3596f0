/**
 * A merge patch merges a nested object without `@id` into the item the relation holds (API Platform's
 * `deep_object_to_populate`): the book keeps its author, whose name changes; no author is created.
 */
import { describe, expect, it } from 'vitest';
import { call, databases, MERGE_PATCH, useBookshop } from './support.js';

describe.each(databases)('merge patch of a nested relation on $name', (database) => {
  const shop = useBookshop(database);
  const req = (method: string, url: string, payload?: object, headers: Record<string, string> = {}) =>
    call(shop().app, { method: method as never, url, ...(payload ? { payload } : {}), headers });

  it('merges a nested object into the existing author instead of creating another one', async () => {
    expect((await req('POST', '/api/books', { title: 'Dune', author: { name: 'Frank Herbert' } })).status).toBe(201);

    const patched = await req('PATCH', '/api/books/1', { author: { name: 'F. Herbert' } }, MERGE_PATCH);
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body.author).toBe('/api/authors/1');
    expect((await req('GET', '/api/authors/1')).body.name).toBe('F. Herbert');
    expect((await req('GET', '/api/authors')).body['hydra:totalItems']).toBe(1);
  });
});
