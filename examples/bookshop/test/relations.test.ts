/** The contract's relations end to end: nested author creation, embedded category and brand, subresources. */
import { describe, expect, it } from 'vitest';
import { call, databases, useBookshop } from './support.js';

describe.each(databases)('bookshop relations on $name', (database) => {
  const shop = useBookshop(database);
  const post = (url: string, payload: object) => call(shop().app, { method: 'POST', url, payload });
  const get = (url: string) => call(shop().app, { method: 'GET', url });

  it('creates a book with a nested author in one request (cascade persist)', async () => {
    const response = await post('/api/books', { title: 'Dune', author: { name: 'Frank Herbert' } });
    expect(response.status).toBe(201);
    expect(response.body).toEqual({ '@context': '/api/contexts/Book', '@id': '/api/books/1', '@type': 'Book', id: 1, title: 'Dune', author: '/api/authors/1' });
    expect((await get('/api/authors/1')).body).toEqual({ '@context': '/api/contexts/Author', '@id': '/api/authors/1', '@type': 'Author', id: 1, name: 'Frank Herbert', books: ['/api/books/1'] });
  });

  it('refuses a nested author with a wrong field type and creates nothing', async () => {
    const response = await post('/api/books', { title: 'Dune', author: { name: 7 } });
    expect(response.status).toBe(400);
    expect(response.body.violations).toEqual([{ propertyPath: 'author.name', message: 'This value should be of type string.', code: expect.any(String) }]);
    expect((await get('/api/authors')).body['hydra:totalItems']).toBe(0);
  });

  it('embeds category and brand as {"@id", "@type", "id", "name"} and takes IRIs on write', async () => {
    await post('/api/categories', { name: 'Books' });
    await post('/api/brands', { name: 'Penguin' });
    const created = await post('/api/products', { name: 'Dune', price: 9.9, createdAt: '2024-01-01T00:00:00Z', category: '/api/categories/1', brand: '/api/brands/1' });
    expect(created.body).toEqual({
      '@context': '/api/contexts/Product', '@id': '/api/products/1', '@type': 'Product', id: 1, name: 'Dune', price: 9.9, createdAt: '2024-01-01T00:00:00+00:00',
      category: { '@id': '/api/categories/1', '@type': 'Category', id: 1, name: 'Books' },
      brand: { '@id': '/api/brands/1', '@type': 'Brand', id: 1, name: 'Penguin' },
    });
    const nested = await post('/api/products', { name: 'X', price: 1, category: { name: 'New' } });
    expect(nested.status).toBe(400);
    expect(nested.body.violations[0].propertyPath).toBe('category');
    // A category on its own still shows only id and name.
    expect((await get('/api/categories/1')).body).toEqual({ '@context': '/api/contexts/Category', '@id': '/api/categories/1', '@type': 'Category', id: 1, name: 'Books' });
  });

  it('serves the books of an author, the comments of a user and the products of a category as subresources', async () => {
    await post('/api/books', { title: 'Dune', author: { name: 'Frank Herbert' } });
    await post('/api/books', { title: 'Emma', author: { name: 'Jane Austen' } });
    await post('/api/books', { title: 'Children of Dune', author: '/api/authors/1' });
    const books = await get('/api/authors/1/books?order[title]=asc');
    expect(books.status).toBe(200);
    expect(books.body['@id']).toBe('/api/authors/1/books');
    expect(books.body['hydra:member'].map((b: { title: string }) => b.title)).toEqual(['Children of Dune', 'Dune']);

    await post('/api/users', { email: 'ann@example.com', plainPassword: 'long-enough' });
    for (const content of ['older', 'newer']) await post('/api/comments', { content, user: '/api/users/1' });
    const comments = await get('/api/users/1/comments?order[createdAt]=desc&order[id]=desc');
    expect(comments.body['hydra:member'].map((c: { content: string }) => c.content)).toEqual(['newer', 'older']);

    await post('/api/categories', { name: 'Books' });
    for (let i = 1; i <= 7; i++) await post('/api/products', { name: `P${i}`, price: i, category: '/api/categories/1' });
    const products = await get('/api/categories/1/products');
    // Product's pagination override applies here too: 5 per page
    expect(products.body['hydra:member']).toHaveLength(5);
    expect(products.body['hydra:totalItems']).toBe(7);
    expect(products.body['hydra:member'][0].category).toEqual({ '@id': '/api/categories/1', '@type': 'Category', id: 1, name: 'Books' });
    expect((await get('/api/categories/1/products?price[gte]=6')).body['hydra:totalItems']).toBe(2);
  });

  it('answers 404 for the subresource of a parent that does not exist', async () => {
    for (const url of ['/api/authors/9/books', '/api/users/9/comments', '/api/categories/9/products']) {
      expect((await get(url)).status, url).toBe(404);
    }
    expect((await get('/api/comments?user=/api/users/9')).status).toBe(200);
  });
});
