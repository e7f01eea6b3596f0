/** Authors and books end to end: create, read, replace, patch, delete, and the relation between them. */
import { describe, expect, it } from 'vitest';
import { call, create, databases, HYDRA_LINK, JSONLD, useBookshop } from './support.js';

const NOT_FOUND = {
  '@context': '/api/contexts/Error',
  '@type': 'hydra:Error',
  'hydra:title': 'An error occurred',
  'hydra:description': 'Not Found',
  title: 'An error occurred',
  detail: 'Not Found',
  status: 404,
  type: '/errors/404',
};

describe.each(databases)('authors and books on $name', (database) => {
  const bookshop = useBookshop(database);

  it('creates an author and answers 201 with the whole JSON-LD item and its Location', async () => {
    const { app } = bookshop();
    const response = await call(app, { method: 'POST', url: '/api/authors', payload: { name: 'Frank Herbert' } });
    expect(response.status).toBe(201);
    expect(response.headers['content-type']).toBe(JSONLD);
    expect(response.headers.location).toBe('/api/authors/1');
    expect(response.body).toEqual({
      '@context': '/api/contexts/Author',
      '@id': '/api/authors/1',
      '@type': 'Author',
      id: 1,
      name: 'Frank Herbert',
      books: [],
    });
  });

  it('creates a book whose author is given as an IRI and renders the author as that IRI', async () => {
    const { app } = bookshop();
    await create(app, 'authors', { name: 'Frank Herbert' });
    const response = await call(app, {
      method: 'POST',
      url: '/api/books',
      headers: { 'content-type': 'application/ld+json' },
      payload: JSON.stringify({ title: 'Dune', author: '/api/authors/1' }),
    });
    expect(response.status).toBe(201);
    expect(response.headers.location).toBe('/api/books/1');
    expect(response.body).toEqual({
      '@context': '/api/contexts/Book',
      '@id': '/api/books/1',
      '@type': 'Book',
      id: 1,
      title: 'Dune',
      author: '/api/authors/1',
    });

    const read = await call(app, { method: 'GET', url: '/api/books/1' });
    expect(read.status).toBe(200);
    expect(read.headers['content-type']).toBe(JSONLD);
    expect(read.body).toEqual(response.body);
  });

  it("lists the IRIs of an author's books once books point at the author", async () => {
    const { app } = bookshop();
    await create(app, 'authors', { name: 'Ursula K. Le Guin' });
    await create(app, 'authors', { name: 'Frank Herbert' });
    await create(app, 'books', { title: 'A Wizard of Earthsea', author: '/api/authors/1' });
    await create(app, 'books', { title: 'Dune', author: '/api/authors/2' });
    await create(app, 'books', { title: 'The Left Hand of Darkness', author: '/api/authors/1' });

    const response = await call(app, { method: 'GET', url: '/api/authors/1' });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      '@context': '/api/contexts/Author',
      '@id': '/api/authors/1',
      '@type': 'Author',
      id: 1,
      name: 'Ursula K. Le Guin',
      books: ['/api/books/1', '/api/books/3'],
    });
  });

  it('serves the books as a Hydra collection with every member whole', async () => {
    const { app } = bookshop();
    await create(app, 'authors', { name: 'Frank Herbert' });
    await create(app, 'books', { title: 'Dune', author: '/api/authors/1' });
    await create(app, 'books', { title: 'Dune Messiah', author: '/api/authors/1' });

    const response = await call(app, { method: 'GET', url: '/api/books' });
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe(JSONLD);
    expect(response.headers.link).toBe(HYDRA_LINK);
    expect(response.body).toEqual({
      '@context': '/api/contexts/Book',
      '@id': '/api/books',
      '@type': 'hydra:Collection',
      'hydra:totalItems': 2,
      'hydra:member': [
        { '@id': '/api/books/1', '@type': 'Book', id: 1, title: 'Dune', author: '/api/authors/1' },
        { '@id': '/api/books/2', '@type': 'Book', id: 2, title: 'Dune Messiah', author: '/api/authors/1' },
      ],
      'hydra:search': {
        '@type': 'hydra:IriTemplate',
        'hydra:template':
          '/api/books{?q,order[id],order[title],author,author[],author.name,author.name[],title,title[]}',
        'hydra:variableRepresentation': 'BasicRepresentation',
        'hydra:mapping': [
          { '@type': 'IriTemplateMapping', variable: 'q', property: null, required: false },
          { '@type': 'IriTemplateMapping', variable: 'order[id]', property: 'id', required: false },
          { '@type': 'IriTemplateMapping', variable: 'order[title]', property: 'title', required: false },
          { '@type': 'IriTemplateMapping', variable: 'author', property: 'author', required: false },
          { '@type': 'IriTemplateMapping', variable: 'author[]', property: 'author', required: false },
          { '@type': 'IriTemplateMapping', variable: 'author.name', property: 'author.name', required: false },
          { '@type': 'IriTemplateMapping', variable: 'author.name[]', property: 'author.name', required: false },
          { '@type': 'IriTemplateMapping', variable: 'title', property: 'title', required: false },
          { '@type': 'IriTemplateMapping', variable: 'title[]', property: 'title', required: false },
        ],
      },
    });
  });

  it('replaces a book with PUT, moving it to another author', async () => {
    const { app } = bookshop();
    await create(app, 'authors', { name: 'Frank Herbert' });
    await create(app, 'authors', { name: 'Brian Herbert' });
    await create(app, 'books', { title: 'Dune', author: '/api/authors/1' });

    const response = await call(app, {
      method: 'PUT',
      url: '/api/books/1',
      payload: { title: 'Dune: House Atreides', author: '/api/authors/2' },
    });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      '@context': '/api/contexts/Book',
      '@id': '/api/books/1',
      '@type': 'Book',
      id: 1,
      title: 'Dune: House Atreides',
      author: '/api/authors/2',
    });
    expect((await call(app, { method: 'GET', url: '/api/authors/1' })).body.books).toEqual([]);
    expect((await call(app, { method: 'GET', url: '/api/authors/2' })).body.books).toEqual(['/api/books/1']);
  });

  it('refuses a PUT that leaves out the required author, and keeps the book as it was', async () => {
    const { app } = bookshop();
    await create(app, 'authors', { name: 'Frank Herbert' });
    await create(app, 'books', { title: 'Dune', author: '/api/authors/1' });

    const response = await call(app, { method: 'PUT', url: '/api/books/1', payload: { title: 'Dune Messiah' } });
    expect(response.status).toBe(400);
    expect(response.body.violations).toEqual([
      {
        propertyPath: 'author',
        message: 'This value should not be null.',
        code: 'ad32d13f-c3d4-423b-909a-857b961eb720',
      },
    ]);
    expect((await call(app, { method: 'GET', url: '/api/books/1' })).body).toMatchObject({
      title: 'Dune',
      author: '/api/authors/1',
    });
  });

  it('changes only the given fields with a merge-patch PATCH', async () => {
    const { app } = bookshop();
    await create(app, 'authors', { name: 'Frank Herbert' });
    await create(app, 'books', { title: 'Dune', author: '/api/authors/1' });

    const response = await call(app, {
      method: 'PATCH',
      url: '/api/books/1',
      headers: { 'content-type': 'application/merge-patch+json' },
      payload: JSON.stringify({ title: 'Dune (50th anniversary edition)' }),
    });
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe(JSONLD);
    expect(response.body).toEqual({
      '@context': '/api/contexts/Book',
      '@id': '/api/books/1',
      '@type': 'Book',
      id: 1,
      title: 'Dune (50th anniversary edition)',
      author: '/api/authors/1',
    });
  });

  it('deletes a book with 204, after which the book is 404 and gone from its author', async () => {
    const { app } = bookshop();
    await create(app, 'authors', { name: 'Frank Herbert' });
    await create(app, 'books', { title: 'Dune', author: '/api/authors/1' });

    const deleted = await call(app, { method: 'DELETE', url: '/api/books/1' });
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    expect(deleted.headers.link).toBe(HYDRA_LINK);

    const read = await call(app, { method: 'GET', url: '/api/books/1' });
    expect(read.status).toBe(404);
    expect(read.body).toEqual(NOT_FOUND);
    expect((await call(app, { method: 'DELETE', url: '/api/books/1' })).status).toBe(404);
    expect((await call(app, { method: 'GET', url: '/api/authors/1' })).body.books).toEqual([]);
  });

  it('answers 404 for an id that does not exist and for ids that are not positive integers', async () => {
    const { app } = bookshop();
    for (const url of [
      '/api/books/42',
      '/api/books/abc',
      '/api/books/0',
      '/api/books/-1',
      '/api/books/1.5',
      '/api/authors/99999999999',
    ]) {
      const response = await call(app, { method: 'GET', url });
      expect(response.status, url).toBe(404);
      expect(response.headers['content-type'], url).toBe(JSONLD);
      expect(response.body, url).toEqual(NOT_FOUND);
    }
    for (const method of ['PUT', 'PATCH', 'DELETE'] as const) {
      const response = await call(app, {
        method,
        url: '/api/books/7',
        headers: { 'content-type': method === 'PATCH' ? 'application/merge-patch+json' : 'application/json' },
        payload: method === 'DELETE' ? undefined : JSON.stringify({ title: 'Nothing' }),
      });
      expect(response.status, method).toBe(404);
    }
  });

  it('refuses an author IRI of another type with a violation on author', async () => {
    const { app, adminToken } = bookshop();
    await create(app, 'authors', { name: 'Frank Herbert' });
    await create(app, 'brands', { name: 'Penguin' }, adminToken);

    const response = await call(app, {
      method: 'POST',
      url: '/api/books',
      payload: { title: 'Dune', author: '/api/brands/1' },
    });
    expect(response.status).toBe(400);
    expect(response.headers['content-type']).toBe(JSONLD);
    expect(response.body).toEqual({
      '@context': '/api/contexts/ConstraintViolationList',
      '@type': 'ConstraintViolationList',
      'hydra:title': 'An error occurred',
      'hydra:description': 'author: IRI "/api/brands/1" is not an item of type "Author".',
      violations: [
        {
          propertyPath: 'author',
          message: 'IRI "/api/brands/1" is not an item of type "Author".',
          code: 'a3a2b3a1-7c49-4c5c-9d7e-2f0c6f1e4d10',
        },
      ],
    });
    expect((await call(app, { method: 'GET', url: '/api/books' })).body['hydra:totalItems']).toBe(0);
  });

  it('refuses the IRI of an author that does not exist with a violation on author', async () => {
    const { app } = bookshop();
    await create(app, 'authors', { name: 'Frank Herbert' });
    await create(app, 'books', { title: 'Dune', author: '/api/authors/1' });

    const created = await call(app, {
      method: 'POST',
      url: '/api/books',
      payload: { title: 'Dune Messiah', author: '/api/authors/7' },
    });
    expect(created.status).toBe(400);
    expect(created.body.violations).toEqual([
      {
        propertyPath: 'author',
        message: 'Item not found for "/api/authors/7".',
        code: 'a3a2b3a1-7c49-4c5c-9d7e-2f0c6f1e4d10',
      },
    ]);
    expect(created.body['hydra:description']).toBe('author: Item not found for "/api/authors/7".');

    const patched = await call(app, {
      method: 'PATCH',
      url: '/api/books/1',
      headers: { 'content-type': 'application/merge-patch+json' },
      payload: JSON.stringify({ author: '/api/authors/7' }),
    });
    expect(patched.status).toBe(400);
    expect(patched.body.violations).toEqual([
      {
        propertyPath: 'author',
        message: 'Item not found for "/api/authors/7".',
        code: 'a3a2b3a1-7c49-4c5c-9d7e-2f0c6f1e4d10',
      },
    ]);
    expect((await call(app, { method: 'GET', url: '/api/books/1' })).body.author).toBe('/api/authors/1');
  });

  it('refuses a book without an author with a NotNull violation on author', async () => {
    const { app } = bookshop();
    for (const payload of [{ title: 'Dune' }, { title: 'Dune', author: null }]) {
      const response = await call(app, { method: 'POST', url: '/api/books', payload });
      expect(response.status).toBe(400);
      expect(response.body.violations).toEqual([
        {
          propertyPath: 'author',
          message: 'This value should not be null.',
          code: 'ad32d13f-c3d4-423b-909a-857b961eb720',
        },
      ]);
    }
  });

  it('refuses to delete an author who still has books, and deletes one who has none', async () => {
    const { app } = bookshop();
    await create(app, 'authors', { name: 'Frank Herbert' });
    await create(app, 'books', { title: 'Dune', author: '/api/authors/1' });

    const refused = await call(app, { method: 'DELETE', url: '/api/authors/1' });
    expect(refused.status).toBe(409);
    expect((await call(app, { method: 'GET', url: '/api/authors/1' })).status).toBe(200);

    expect((await call(app, { method: 'DELETE', url: '/api/books/1' })).status).toBe(204);
    expect((await call(app, { method: 'DELETE', url: '/api/authors/1' })).status).toBe(204);
    expect((await call(app, { method: 'GET', url: '/api/authors/1' })).status).toBe(404);
  });
});
