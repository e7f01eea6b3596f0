/** The demo data command loads its data set through the API, and a second run changes nothing. */
import { describe, expect, it } from 'vitest';
import { loadDemoData } from '../src/demo-data.js';
import { call, databases, useBookshop } from './support.js';

describe.each(databases)('the demo data on $name', (database) => {
  const bookshop = useBookshop(database);

  it('loads authors, books, categories, brands and products, related to each other', async () => {
    const { app } = bookshop();
    const result = await loadDemoData(app);
    expect(result).toEqual({ loaded: true, created: { authors: 3, books: 5, categories: 3, brands: 3, products: 6 } });

    const totals: Record<string, number> = {};
    for (const collection of ['authors', 'books', 'categories', 'brands', 'products', 'users']) {
      totals[collection] = (await call(app, { method: 'GET', url: `/api/${collection}` })).body['hydra:totalItems'];
    }
    expect(totals).toEqual({ authors: 3, books: 5, categories: 3, brands: 3, products: 6, users: 0 });
    const dune = (await call(app, { method: 'GET', url: '/api/books/3' })).body;
    expect(dune).toMatchObject({ title: 'Dune', author: '/api/authors/2' });
    const herbert = (await call(app, { method: 'GET', url: '/api/authors/2' })).body;
    expect(herbert).toMatchObject({ name: 'Frank Herbert', books: ['/api/books/3'] });
    const notebook = (await call(app, { method: 'GET', url: '/api/products/3' })).body;
    expect(notebook).toMatchObject({ name: 'Classic notebook, large', price: 21.9, category: expect.objectContaining({ '@id': '/api/categories/2' }), brand: expect.objectContaining({ '@id': '/api/brands/2' }) });
  });

  it('loads nothing the second time', async () => {
    const { app } = bookshop();
    await loadDemoData(app);
    expect(await loadDemoData(app)).toEqual({ loaded: false, created: {} });
    expect((await call(app, { method: 'GET', url: '/api/authors' })).body['hydra:totalItems']).toBe(3);
    expect((await call(app, { method: 'GET', url: '/api/products' })).body['hydra:totalItems']).toBe(6);
  });
});
