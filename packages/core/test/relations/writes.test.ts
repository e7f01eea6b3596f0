/** Writing relations: nested creation with cascadePersist, nested updates by @id, rollback, many-to-many. */
import { describe, expect, inject, it } from 'vitest';
import { defineResource, verifyPassword } from '@resource-api/core';
import { testDatabases } from '@resource-api/core/testing';
import { call, useApp } from '../helpers.js';

const Author = defineResource({
  name: 'Author',
  fields: {
    name: { type: 'string' },
    secret: { type: 'password', nullable: true },
    books: { toMany: 'Book', mappedBy: 'author' },
  },
});
const Publisher = defineResource({ name: 'Publisher', fields: { name: { type: 'string' } } });
const Tag = defineResource({
  name: 'Tag',
  fields: { label: { type: 'string' }, books: { toMany: 'Book', mappedBy: 'tags' } },
});
const Book = defineResource({
  name: 'Book',
  fields: {
    title: { type: 'string' },
    author: { toOne: 'Author', inversedBy: 'books', cascadePersist: true },
    publisher: { toOne: 'Publisher', nullable: true },
    tags: { toMany: 'Tag', inversedBy: 'books' },
  },
  filters: [{ type: 'search', properties: { 'tags.label': 'exact', tags: 'exact' } }],
});

describe.each(testDatabases(inject('postgresUrl'), inject('mariadbUrl')))('writing relations on $name', (database) => {
  const app = useApp(database, { resources: [Author, Publisher, Tag, Book] });
  const post = (url: string, payload: object) => call(app(), { method: 'POST', url, payload });
  const count = async (table: string) =>
    Number((await app().resourceApi.database.knex(table).count({ n: '*' }).first())!.n);

  it('creates the related item of a nested object in the same transaction (cascade persist)', async () => {
    const response = await post('/api/books', {
      title: 'Dune',
      author: { name: 'Frank Herbert', secret: 'spice-must-flow' },
    });
    expect(response.status).toBe(201);
    expect(response.body).toEqual({
      '@context': '/api/contexts/Book',
      '@id': '/api/books/1',
      '@type': 'Book',
      id: 1,
      title: 'Dune',
      author: '/api/authors/1',
      tags: [],
    });
    expect((await call(app(), { method: 'GET', url: '/api/authors/1' })).body).toEqual({
      '@context': '/api/contexts/Author',
      '@id': '/api/authors/1',
      '@type': 'Author',
      id: 1,
      name: 'Frank Herbert',
      books: ['/api/books/1'],
    });
    const stored = await app().resourceApi.database.knex('author').where('id', 1).first();
    expect(stored.secret).toMatch(/^scrypt\$/);
  });

  it('updates the related item named by the nested @id', async () => {
    await post('/api/authors', { name: 'Frank' });
    const response = await post('/api/books', {
      title: 'Dune',
      author: { '@id': '/api/authors/1', name: 'Frank Herbert' },
    });
    expect(response.status).toBe(201);
    expect(response.body.author).toBe('/api/authors/1');
    expect((await call(app(), { method: 'GET', url: '/api/authors/1' })).body.name).toBe('Frank Herbert');
    expect(await count('author')).toBe(1);
  });

  it('hashes a new password of a nested item it updates, and keeps the stored hash when the password is left out', async () => {
    const knex = () => app().resourceApi.database.knex;
    await post('/api/authors', { name: 'Frank', secret: 'spice-must-flow' });
    const first = (await knex()('author').where('id', 1).first()).secret as string;
    // Left out: the stored hash stays as it was (hashing it again would lose the password).
    expect(
      (await post('/api/books', { title: 'Dune', author: { '@id': '/api/authors/1', name: 'Frank Herbert' } })).status,
    ).toBe(201);
    expect((await knex()('author').where('id', 1).first()).secret).toBe(first);
    // A new one, even shaped like a stored hash, is hashed: it is what its owner will type.
    const shaped = 'scrypt$16384$8$1$c2FsdA==$aGFzaA==';
    expect(
      (await post('/api/books', { title: 'Dune II', author: { '@id': '/api/authors/1', secret: shaped } })).status,
    ).toBe(201);
    const second = (await knex()('author').where('id', 1).first()).secret as string;
    expect(second).not.toBe(shaped);
    expect(await verifyPassword(shaped, second)).toBe(true);
  });

  it('reports nested violations with their path and writes nothing', async () => {
    const response = await post('/api/books', { title: 'Dune', author: { name: 42 } });
    expect(response.status).toBe(400);
    expect(response.body.violations).toEqual([
      { propertyPath: 'author.name', message: 'This value should be of type string.', code: expect.any(String) },
    ]);
    const missing = await post('/api/books', { title: 'Dune', author: {} });
    expect(missing.body.violations).toEqual([
      { propertyPath: 'author.name', message: 'This value should not be null.', code: expect.any(String) },
    ]);
    expect(await count('author')).toBe(0);
    expect(await count('book')).toBe(0);
  });

  it('refuses nested objects on relations that do not cascade, and unknown nested @ids', async () => {
    await post('/api/authors', { name: 'A' });
    const nested = await post('/api/books', { title: 'T', author: '/api/authors/1', publisher: { name: 'Ace' } });
    expect(nested.status).toBe(400);
    expect(nested.body.violations).toEqual([
      {
        propertyPath: 'publisher',
        message: 'This value should be an IRI string of "Publisher" items.',
        code: expect.any(String),
      },
    ]);
    const unknown = await post('/api/books', { title: 'T', author: { '@id': '/api/authors/9', name: 'x' } });
    expect(unknown.body.violations).toEqual([
      { propertyPath: 'author', message: 'Item not found for "/api/authors/9".', code: expect.any(String) },
    ]);
  });

  it('rolls the whole write back when a later step fails', async () => {
    const { knex } = app().resourceApi.database;
    // A unique index makes the book insert fail after the nested author was inserted in the same transaction.
    await knex.raw('CREATE UNIQUE INDEX book_title_unique ON book (title)');
    await post('/api/authors', { name: 'First' });
    expect((await post('/api/books', { title: 'Dune', author: '/api/authors/1' })).status).toBe(201);
    const response = await post('/api/books', { title: 'Dune', author: { name: 'Nested' } });
    expect(response.status).toBe(409);
    expect(await count('author')).toBe(1);
    expect(await count('book')).toBe(1);
  });

  it('writes many-to-many links from the owning side; the inverse side lists them', async () => {
    for (const label of ['sf', 'classic', 'french']) await post('/api/tags', { label });
    await post('/api/authors', { name: 'A' });
    const created = await post('/api/books', {
      title: 'Dune',
      author: '/api/authors/1',
      tags: ['/api/tags/1', '/api/tags/2', '/api/tags/1'],
    });
    expect(created.body.tags).toEqual(['/api/tags/1', '/api/tags/2']);
    await post('/api/books', { title: 'Misérables', author: '/api/authors/1', tags: ['/api/tags/2', '/api/tags/3'] });
    expect((await call(app(), { method: 'GET', url: '/api/tags/2' })).body.books).toEqual([
      '/api/books/1',
      '/api/books/2',
    ]);
    // filters go through the join table
    const bySf = await call(app(), { method: 'GET', url: '/api/books?tags.label=french' });
    expect(bySf.body['hydra:member'].map((b: { title: string }) => b.title)).toEqual(['Misérables']);
    expect((await call(app(), { method: 'GET', url: '/api/books?tags=/api/tags/2' })).body['hydra:totalItems']).toBe(2);
    // PATCH replaces the set; leaving it out keeps it
    const patched = await call(app(), {
      method: 'PATCH',
      url: '/api/books/1',
      headers: { 'content-type': 'application/merge-patch+json' },
      payload: JSON.stringify({ tags: ['/api/tags/3'] }),
    });
    expect(patched.body.tags).toEqual(['/api/tags/3']);
    const kept = await call(app(), {
      method: 'PATCH',
      url: '/api/books/1',
      headers: { 'content-type': 'application/merge-patch+json' },
      payload: JSON.stringify({ title: 'Dune!' }),
    });
    expect(kept.body.tags).toEqual(['/api/tags/3']);
    // PUT without it empties it
    const put = await call(app(), {
      method: 'PUT',
      url: '/api/books/1',
      payload: { title: 'Dune', author: '/api/authors/1' },
    });
    expect(put.body.tags).toEqual([]);
    // deleting a tag removes its links
    expect((await call(app(), { method: 'DELETE', url: '/api/tags/3' })).status).toBe(204);
    expect((await call(app(), { method: 'GET', url: '/api/books/2' })).body.tags).toEqual(['/api/tags/2']);
  });

  it('refuses bad IRIs in a many-to-many list, naming the position', async () => {
    await post('/api/tags', { label: 'sf' });
    await post('/api/authors', { name: 'A' });
    const response = await post('/api/books', {
      title: 'T',
      author: '/api/authors/1',
      tags: ['/api/tags/1', '/api/authors/1', '/api/tags/8'],
    });
    expect(response.status).toBe(400);
    expect(response.body.violations).toEqual([
      {
        propertyPath: 'tags[1]',
        message: 'IRI "/api/authors/1" is not an item of type "Tag".',
        code: expect.any(String),
      },
      { propertyPath: 'tags[2]', message: 'Item not found for "/api/tags/8".', code: expect.any(String) },
    ]);
    expect(await count('book')).toBe(0);
  });
});
