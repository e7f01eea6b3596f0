/** The contract's relations end to end: nested author creation, embedded category and brand, subresources. */
import { describe, expect, it } from 'vitest';
import { bearer, call, databases, registerAndLogin, useBookshop } from './support.js';

describe.each(databases)('bookshop relations on $name', (database) => {
  const shop = useBookshop(database);
  /** A POST, anonymous unless a token is given. */
  const post = (url: string, payload: object, token?: string) =>
    call(shop().app, { method: 'POST', url, payload, ...(token ? { headers: bearer(token) } : {}) });
  /** A POST as the admin (categories, brands and products are admin-only writes). */
  const asAdmin = (url: string, payload: object) => post(url, payload, shop().adminToken);
  /** A GET, anonymous unless a token is given (products need ROLE_USER). */
  const get = (url: string, token?: string) =>
    call(shop().app, { method: 'GET', url, ...(token ? { headers: bearer(token) } : {}) });

  it('creates a book with a nested author in one request (cascade persist)', async () => {
    const response = await post('/api/books', { title: 'Dune', author: { name: 'Frank Herbert' } });
    expect(response.status).toBe(201);
    expect(response.body).toEqual({
      '@context': '/api/contexts/Book',
      '@id': '/api/books/1',
      '@type': 'Book',
      id: 1,
      title: 'Dune',
      author: '/api/authors/1',
    });
    expect((await get('/api/authors/1')).body).toEqual({
      '@context': '/api/contexts/Author',
      '@id': '/api/authors/1',
      '@type': 'Author',
      id: 1,
      name: 'Frank Herbert',
      books: ['/api/books/1'],
    });
  });

  it('refuses a nested author with a wrong field type and creates nothing', async () => {
    const response = await post('/api/books', { title: 'Dune', author: { name: 7 } });
    expect(response.status).toBe(400);
    expect(response.body.violations).toEqual([
      { propertyPath: 'author.name', message: 'This value should be of type string.', code: expect.any(String) },
    ]);
    expect((await get('/api/authors')).body['hydra:totalItems']).toBe(0);
  });

  it('embeds category and brand as {"@id", "@type", "id", "name"} and takes IRIs on write', async () => {
    expect((await asAdmin('/api/categories', { name: 'Books' })).status).toBe(201);
    expect((await asAdmin('/api/brands', { name: 'Penguin' })).status).toBe(201);
    const created = await asAdmin('/api/products', {
      name: 'Dune',
      price: 9.9,
      createdAt: '2024-01-01T00:00:00Z',
      category: '/api/categories/1',
      brand: '/api/brands/1',
    });
    expect(created.body).toEqual({
      '@context': '/api/contexts/Product',
      '@id': '/api/products/1',
      '@type': 'Product',
      id: 1,
      name: 'Dune',
      price: 9.9,
      createdAt: '2024-01-01T00:00:00+00:00',
      category: { '@id': '/api/categories/1', '@type': 'Category', id: 1, name: 'Books' },
      brand: { '@id': '/api/brands/1', '@type': 'Brand', id: 1, name: 'Penguin' },
    });
    const nested = await asAdmin('/api/products', { name: 'X', price: 1, category: { name: 'New' } });
    expect(nested.status).toBe(400);
    expect(nested.body.violations[0].propertyPath).toBe('category');
    // A category on its own still shows only id and name.
    expect((await get('/api/categories/1')).body).toEqual({
      '@context': '/api/contexts/Category',
      '@id': '/api/categories/1',
      '@type': 'Category',
      id: 1,
      name: 'Books',
    });
  });

  it('serves the books of an author, the comments of a user and the products of a category as subresources', async () => {
    await post('/api/books', { title: 'Dune', author: { name: 'Frank Herbert' } });
    await post('/api/books', { title: 'Emma', author: { name: 'Jane Austen' } });
    await post('/api/books', { title: 'Children of Dune', author: '/api/authors/1' });
    const books = await get('/api/authors/1/books?order[title]=asc');
    expect(books.status).toBe(200);
    expect(books.body['@id']).toBe('/api/authors/1/books');
    expect(books.body['hydra:member'].map((b: { title: string }) => b.title)).toEqual(['Children of Dune', 'Dune']);

    // User 2 (user 1 is the admin); the subresource is public.
    const ann = await registerAndLogin(shop().app, 'ann@example.com', { plainPassword: 'long-enough' });
    for (const content of ['older', 'newer'])
      expect((await post('/api/comments', { content }, ann.token)).status).toBe(201);
    const comments = await get('/api/users/2/comments?order[createdAt]=desc&order[id]=desc');
    expect(comments.status).toBe(200);
    expect(comments.body['@id']).toBe('/api/users/2/comments');
    expect(comments.body['hydra:member'].map((c: { content: string }) => c.content)).toEqual(['newer', 'older']);

    await asAdmin('/api/categories', { name: 'Books' });
    for (let i = 1; i <= 7; i++)
      expect((await asAdmin('/api/products', { name: `P${i}`, price: i, category: '/api/categories/1' })).status).toBe(
        201,
      );
    // Product's access rule applies here too: users read them.
    const products = await get('/api/categories/1/products', ann.token);
    expect(products.status).toBe(200);
    // Product's pagination override applies here too: 5 per page
    expect(products.body['hydra:member']).toHaveLength(5);
    expect(products.body['hydra:totalItems']).toBe(7);
    expect(products.body['hydra:member'][0].category).toEqual({
      '@id': '/api/categories/1',
      '@type': 'Category',
      id: 1,
      name: 'Books',
    });
    expect((await get('/api/categories/1/products?price[gte]=6', ann.token)).body['hydra:totalItems']).toBe(2);
  });

  it('answers 404 for the subresource of a parent that does not exist', async () => {
    // The products of a category need ROLE_USER: a user's token, so the 404 is not hidden behind a 401.
    const { token } = await registerAndLogin(shop().app, 'ann@example.com');
    for (const url of ['/api/authors/9/books', '/api/users/9/comments', '/api/categories/9/products']) {
      expect((await get(url, token)).status, url).toBe(404);
    }
    for (const url of ['/api/authors/9/books', '/api/users/9/comments']) expect((await get(url)).status, url).toBe(404);
    expect((await get('/api/comments?user=/api/users/9')).status).toBe(200);
  });
});
