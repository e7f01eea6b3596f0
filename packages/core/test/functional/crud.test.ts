/** The six default operations, end to end, with whole JSON-LD bodies, on SQLite and PostgreSQL. */
import { describe, expect, inject, it } from 'vitest';
import { testDatabases } from '@resource-api/core/testing';
import { Author, Book } from '../fixtures.js';
import { call, useApp } from '../helpers.js';

describe.each(testDatabases(inject('postgresUrl'), inject('mariadbUrl')))('CRUD on $name', (database) => {
  const app = useApp(database, { resources: [Author, Book] });
  const post = (url: string, payload: unknown) => call(app(), { method: 'POST', url, payload: payload as object });
  const createAuthor = async (name = 'Frank Herbert') => (await post('/api/authors', { name })).body;

  it('creates an item: 201, Location, the whole JSON-LD body', async () => {
    const response = await post('/api/authors', { name: 'Frank Herbert' });
    expect(response.status).toBe(201);
    expect(response.headers.location).toBe('/api/authors/1');
    expect(response.headers['content-type']).toBe('application/ld+json; charset=utf-8');
    expect(response.body).toEqual({
      '@context': '/api/contexts/Author',
      '@id': '/api/authors/1',
      '@type': 'Author',
      id: 1,
      name: 'Frank Herbert',
      books: [],
    });
  });

  it('creates a book with every field type and reads it back the same', async () => {
    await createAuthor();
    const payload = {
      title: 'Dune',
      summary: 'Spice.',
      pages: 412,
      price: 9.99,
      available: false,
      publishedAt: '1965-08-01T10:20:30+02:00',
      releaseDate: '1965-08-01',
      extra: { translations: ['fr', 'de'], first: { year: 1965 } },
      tags: ['sf', 'classic'],
      isbn: '978-0441013593',
      author: '/api/authors/1',
    };
    const created = await post('/api/books', payload);
    expect(created.status).toBe(201);
    const expected = {
      '@context': '/api/contexts/Book',
      '@id': '/api/books/1',
      '@type': 'Book',
      id: 1,
      title: 'Dune',
      summary: 'Spice.',
      pages: 412,
      price: 9.99,
      available: false,
      publishedAt: '1965-08-01T08:20:30+00:00',
      releaseDate: '1965-08-01',
      extra: { translations: ['fr', 'de'], first: { year: 1965 } },
      tags: ['sf', 'classic'],
      createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?\+00:00$/),
      isbn: '978-0441013593',
      author: '/api/authors/1',
    };
    expect(created.body).toEqual(expected);
    const read = await call(app(), { method: 'GET', url: '/api/books/1' });
    expect(read.status).toBe(200);
    expect(read.body).toEqual({ ...expected, createdAt: created.body.createdAt });
  });

  it('keeps milliseconds of date-times, and time zones become UTC offsets', async () => {
    await createAuthor();
    const created = await post('/api/books', {
      title: 'T',
      author: '/api/authors/1',
      publishedAt: '2024-02-29T23:59:59.123-05:00',
    });
    expect(created.body.publishedAt).toBe('2024-03-01T04:59:59.123+00:00');
  });

  it('applies defaults and leaves null values out of the body', async () => {
    await createAuthor();
    const created = await post('/api/books', { title: 'Short', author: '/api/authors/1' });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      '@context': '/api/contexts/Book',
      '@id': '/api/books/1',
      '@type': 'Book',
      id: 1,
      title: 'Short',
      price: 0,
      available: true,
      tags: [],
      createdAt: expect.any(String),
      author: '/api/authors/1',
    });
  });

  it('lists a collection as hydra:Collection with the total, and the inverse side as IRIs', async () => {
    await createAuthor('A');
    await createAuthor('B');
    for (const [title, author] of [
      ['One', 1],
      ['Two', 2],
      ['Three', 1],
    ] as const)
      await post('/api/books', { title, author: `/api/authors/${author}` });
    const response = await call(app(), { method: 'GET', url: '/api/authors' });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      '@context': '/api/contexts/Author',
      '@id': '/api/authors',
      '@type': 'hydra:Collection',
      'hydra:totalItems': 2,
      'hydra:member': [
        { '@id': '/api/authors/1', '@type': 'Author', id: 1, name: 'A', books: ['/api/books/1', '/api/books/3'] },
        { '@id': '/api/authors/2', '@type': 'Author', id: 2, name: 'B', books: ['/api/books/2'] },
      ],
    });
  });

  it('loads the to-many relations of a whole page in one query, not one per item', async () => {
    for (let i = 1; i <= 10; i++) await createAuthor(`Author ${i}`);
    for (let i = 1; i <= 10; i++) await post('/api/books', { title: `Book ${i}`, author: `/api/authors/${i}` });
    const queries: string[] = [];
    const knex = app().resourceApi.database.knex;
    const listener = (query: { sql: string }) => queries.push(query.sql);
    knex.on('query', listener);
    const response = await call(app(), { method: 'GET', url: '/api/authors' });
    knex.off('query', listener);
    expect(response.body['hydra:member']).toHaveLength(10);
    expect(response.body['hydra:member'][9].books).toEqual(['/api/books/10']);
    // the page with its count (one statement), and the books of the whole page
    expect(queries).toHaveLength(2);
  });

  it('writes the LIMIT of item and page reads into the SQL, not as a bound value (SQLite re-prepares a bound LIMIT on every run)', async () => {
    for (let i = 1; i <= 4; i++) await createAuthor(`Author ${i}`);
    const statements: { sql: string; bindings: unknown[] }[] = [];
    const knex = app().resourceApi.database.knex;
    const listener = (query: { sql: string; bindings?: unknown[] }) =>
      statements.push({ sql: query.sql, bindings: query.bindings ?? [] });
    knex.on('query', listener);
    const item = await call(app(), { method: 'GET', url: '/api/authors/2' });
    const page = await call(app(), { method: 'GET', url: '/api/authors?page=2&itemsPerPage=3' });
    knex.off('query', listener);
    expect(item.body.name).toBe('Author 2');
    expect(page.body['hydra:member'].map((a: { name: string }) => a.name)).toEqual(['Author 4']);
    const reads = statements.filter((statement) => /\blimit\b/i.test(statement.sql));
    expect(reads.map((statement) => /\blimit (\d+)\b/i.exec(statement.sql)?.[1])).toEqual(['1', '3']);
    expect(reads.map((statement) => statement.bindings)).toEqual([[2], [3]]);
  });

  it('replaces with PUT: given fields change, left-out writable fields go back to their defaults', async () => {
    await createAuthor('A');
    await createAuthor('B');
    const created = await post('/api/books', {
      title: 'Old',
      author: '/api/authors/1',
      pages: 10,
      price: 5,
      tags: ['x'],
      isbn: 'I-1',
    });
    const response = await call(app(), {
      method: 'PUT',
      url: '/api/books/1',
      payload: { title: 'New', author: '/api/authors/2', isbn: 'changed', createdAt: '2000-01-01T00:00:00+00:00' },
    });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      '@context': '/api/contexts/Book',
      '@id': '/api/books/1',
      '@type': 'Book',
      id: 1,
      title: 'New',
      price: 0,
      available: true,
      tags: [],
      // immutable and read-only fields keep their values
      isbn: 'I-1',
      createdAt: created.body.createdAt,
      author: '/api/authors/2',
    });
    const authors = await call(app(), { method: 'GET', url: '/api/authors' });
    expect(authors.body['hydra:member'].map((a: { books: string[] }) => a.books)).toEqual([[], ['/api/books/1']]);
  });

  it('refuses a PUT that leaves out a required field, and changes nothing', async () => {
    await createAuthor();
    await post('/api/books', { title: 'Kept', author: '/api/authors/1' });
    const response = await call(app(), { method: 'PUT', url: '/api/books/1', payload: { title: 'Lost' } });
    expect(response.status).toBe(400);
    expect(response.body.violations).toEqual([
      {
        propertyPath: 'author',
        message: 'This value should not be null.',
        code: 'ad32d13f-c3d4-423b-909a-857b961eb720',
      },
    ]);
    expect((await call(app(), { method: 'GET', url: '/api/books/1' })).body.title).toBe('Kept');
  });

  it('updates with PATCH as a JSON merge patch, for each accepted content type', async () => {
    await createAuthor();
    await post('/api/books', {
      title: 'Dune',
      author: '/api/authors/1',
      pages: 10,
      summary: 'S',
      extra: { a: 1, b: { c: 2, d: 3 } },
    });
    for (const contentType of ['application/merge-patch+json', 'application/json', 'application/ld+json']) {
      const response = await call(app(), {
        method: 'PATCH',
        url: '/api/books/1',
        headers: { 'content-type': contentType },
        payload: JSON.stringify({ pages: 20 }),
      });
      expect(response.status).toBe(200);
    }
    const response = await call(app(), {
      method: 'PATCH',
      url: '/api/books/1',
      headers: { 'content-type': 'application/merge-patch+json' },
      payload: JSON.stringify({ summary: null, extra: { b: { c: null, e: 4 } } }),
    });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ title: 'Dune', pages: 20, extra: { a: 1, b: { d: 3, e: 4 } } });
    expect(response.body).not.toHaveProperty('summary');
  });

  it('deletes: 204 with an empty body, then 404', async () => {
    await createAuthor();
    const response = await call(app(), { method: 'DELETE', url: '/api/authors/1' });
    expect(response.status).toBe(204);
    expect(response.text).toBe('');
    expect((await call(app(), { method: 'GET', url: '/api/authors/1' })).status).toBe(404);
    expect((await call(app(), { method: 'DELETE', url: '/api/authors/1' })).status).toBe(404);
  });

  it('refuses to delete an item others still point at with 409, and keeps it', async () => {
    await createAuthor();
    await post('/api/books', { title: 'Dune', author: '/api/authors/1' });
    const response = await call(app(), { method: 'DELETE', url: '/api/authors/1' });
    expect(response.status).toBe(409);
    expect(response.body['hydra:description']).toBe('This Author cannot be deleted: other items still refer to it.');
    expect((await call(app(), { method: 'GET', url: '/api/authors/1' })).status).toBe(200);
  });

  it('answers 404 for unknown, non-numeric and out-of-range ids', async () => {
    for (const id of ['99', 'abc', '0', '-1', '1.5', '99999999999999999999', '01']) {
      const response = await call(app(), { method: 'GET', url: `/api/authors/${id}` });
      expect(response.status, id).toBe(404);
      expect(response.body).toEqual({
        '@context': '/api/contexts/Error',
        '@type': 'hydra:Error',
        'hydra:title': 'An error occurred',
        'hydra:description': 'Not Found',
        title: 'An error occurred',
        detail: 'Not Found',
        status: 404,
        type: '/errors/404',
      });
    }
  });

  it('ignores read-only, unknown and JSON-LD keys in the body silently', async () => {
    const response = await post('/api/authors', {
      name: 'A',
      id: 42,
      books: ['/api/books/1'],
      unknown: true,
      '@context': '/x',
      '@type': 'Author',
    });
    expect(response.status).toBe(201);
    expect(response.body).toEqual({
      '@context': '/api/contexts/Author',
      '@id': '/api/authors/1',
      '@type': 'Author',
      id: 1,
      name: 'A',
      books: [],
    });
  });

  it('renders plain JSON for Accept: application/json, with a bare array for collections', async () => {
    await createAuthor();
    await post('/api/books', { title: 'Dune', author: '/api/authors/1' });
    const item = await call(app(), { method: 'GET', url: '/api/authors/1', headers: { accept: 'application/json' } });
    expect(item.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(item.body).toEqual({ id: 1, name: 'Frank Herbert', books: ['/api/books/1'] });
    const collection = await call(app(), {
      method: 'GET',
      url: '/api/authors',
      headers: { accept: 'application/json' },
    });
    expect(collection.body).toEqual([{ id: 1, name: 'Frank Herbert', books: ['/api/books/1'] }]);
    const created = await call(app(), {
      method: 'POST',
      url: '/api/authors',
      headers: { accept: 'application/json' },
      payload: { name: 'B' },
    });
    expect(created.body).toEqual({ id: 2, name: 'B', books: [] });
  });
});
