/** What every client of the bookshop relies on: formats, JSON-LD contexts, the entrypoint, the Link header, errors. */
import { describe, expect, it } from 'vitest';
import { bearer, call, create, databases, HYDRA_LINK, JSONLD, useBookshop } from './support.js';

describe.each(databases)('the wire format on $name', (database) => {
  const bookshop = useBookshop(database);

  async function oneBook() {
    const { app } = bookshop();
    await create(app, 'authors', { name: 'Frank Herbert' });
    await create(app, 'books', { title: 'Dune', author: '/api/authors/1' });
    await create(app, 'books', { title: 'Dune Messiah', author: '/api/authors/1' });
    return app;
  }

  it('answers plain JSON without @ keys to Accept: application/json', async () => {
    const app = await oneBook();
    const headers = { accept: 'application/json' };
    const item = await call(app, { method: 'GET', url: '/api/books/1', headers });
    expect(item.status).toBe(200);
    expect(item.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(item.body).toEqual({ id: 1, title: 'Dune', author: '/api/authors/1' });

    const author = await call(app, { method: 'GET', url: '/api/authors/1', headers });
    expect(author.body).toEqual({ id: 1, name: 'Frank Herbert', books: ['/api/books/1', '/api/books/2'] });

    const created = await call(app, {
      method: 'POST',
      url: '/api/categories',
      headers: { ...headers, ...bearer(bookshop().adminToken) },
      payload: { name: 'Books' },
    });
    expect(created.status).toBe(201);
    expect(created.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(created.body).toEqual({ id: 1, name: 'Books' });
  });

  it('answers a collection as a bare array to Accept: application/json', async () => {
    const app = await oneBook();
    const response = await call(app, { method: 'GET', url: '/api/books', headers: { accept: 'application/json' } });
    expect(response.status).toBe(200);
    expect(response.body).toEqual([
      { id: 1, title: 'Dune', author: '/api/authors/1' },
      { id: 2, title: 'Dune Messiah', author: '/api/authors/1' },
    ]);
  });

  it('resolves the JSON-LD context of Book', async () => {
    const { app } = bookshop();
    const response = await call(app, { method: 'GET', url: '/api/contexts/Book' });
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe(JSONLD);
    expect(response.body).toEqual({
      '@context': {
        '@vocab': 'http://localhost:80/api/docs.jsonld#',
        hydra: 'http://www.w3.org/ns/hydra/core#',
        title: 'Book/title',
        author: { '@id': 'Book/author', '@type': '@id' },
        cover: { '@id': 'Book/cover', '@type': '@id' },
      },
    });
  });

  it('maps the name of authors, categories and brands to https://schema.org/name in their contexts', async () => {
    const { app } = bookshop();
    for (const type of ['Author', 'Category', 'Brand']) {
      const response = await call(app, { method: 'GET', url: `/api/contexts/${type}` });
      expect(response.status, type).toBe(200);
      expect(response.body['@context'].name, type).toBe('https://schema.org/name');
    }
    const author = await call(app, { method: 'GET', url: '/api/contexts/Author' });
    expect(author.body['@context'].books).toEqual({ '@id': 'Author/books', '@type': '@id' });
    const product = await call(app, { method: 'GET', url: '/api/contexts/Product' });
    expect(product.body['@context'].name).toBe('Product/name');
  });

  it('lists every collection in the entrypoint', async () => {
    const { app } = bookshop();
    const response = await call(app, { method: 'GET', url: '/api' });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      '@context': '/api/contexts/Entrypoint',
      '@id': '/api',
      '@type': 'Entrypoint',
      article: '/api/articles',
      auditEntry: '/api/audit_entries',
      author: '/api/authors',
      book: '/api/books',
      brand: '/api/brands',
      category: '/api/categories',
      comment: '/api/comments',
      mediaObject: '/api/media_objects',
      product: '/api/products',
      user: '/api/users',
    });
  });

  it('sends the Hydra documentation Link header on items, collections, creations, contexts and errors', async () => {
    const app = await oneBook();
    const responses = [
      await call(app, { method: 'GET', url: '/api/books/1' }),
      await call(app, { method: 'GET', url: '/api/books' }),
      await call(app, {
        method: 'POST',
        url: '/api/brands',
        headers: bearer(bookshop().adminToken),
        payload: { name: 'Penguin' },
      }),
      await call(app, { method: 'GET', url: '/api/contexts/Book' }),
      await call(app, { method: 'GET', url: '/api' }),
      await call(app, { method: 'GET', url: '/api/books/404' }),
      await call(app, { method: 'POST', url: '/api/books', payload: { title: 'No author' } }),
    ];
    expect(responses.map((r) => r.status)).toEqual([200, 200, 201, 200, 200, 404, 400]);
    for (const response of responses) expect(response.headers.link).toBe(HYDRA_LINK);
  });

  it('answers plain problem details for an unknown id to Accept: application/json', async () => {
    const { app } = bookshop();
    const response = await call(app, { method: 'GET', url: '/api/books/12', headers: { accept: 'application/json' } });
    expect(response.status).toBe(404);
    expect(response.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    expect(response.body).toEqual({
      type: '/errors/404',
      title: 'An error occurred',
      detail: 'Not Found',
      status: 404,
    });
  });

  it('answers 404 for an unknown type of context', async () => {
    const { app } = bookshop();
    const response = await call(app, { method: 'GET', url: '/api/contexts/Spaceship' });
    expect(response.status).toBe(404);
    expect(response.body['@type']).toBe('hydra:Error');
  });

  it('answers 415 to a PATCH whose body is not merge-patch, JSON or JSON-LD', async () => {
    const app = await oneBook();
    const response = await call(app, {
      method: 'PATCH',
      url: '/api/books/1',
      headers: { 'content-type': 'text/plain' },
      payload: 'title=Dune',
    });
    expect(response.status).toBe(415);
    expect((await call(app, { method: 'GET', url: '/api/books/1' })).body.title).toBe('Dune');
  });

  it('answers 406 to an Accept the API cannot serve', async () => {
    const app = await oneBook();
    const response = await call(app, { method: 'GET', url: '/api/books/1', headers: { accept: 'text/csv' } });
    expect(response.status).toBe(406);
  });
});
