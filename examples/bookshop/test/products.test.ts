/**
 * Categories, brands and products end to end: relations to two resources, an immutable creation date. The admin
 * writes (categories, brands and products are admin-only writes); a registered user reads the products (ROLE_USER).
 */
import { describe, expect, it } from 'vitest';
import { bearer, call, create, databases, DATETIME, MERGE_PATCH, registerAndLogin, useBookshop } from './support.js';

describe.each(databases)('categories, brands and products on $name', (database) => {
  const bookshop = useBookshop(database);

  async function catalog() {
    const { app, adminToken } = bookshop();
    await create(app, 'categories', { name: 'Books' }, adminToken);
    await create(app, 'categories', { name: 'Stationery' }, adminToken);
    await create(app, 'brands', { name: 'Penguin' }, adminToken);
    await create(app, 'brands', { name: 'Moleskine' }, adminToken);
    const reader = await registerAndLogin(app, 'reader@example.com');
    return { app, admin: bearer(adminToken), adminToken, reader: reader.auth };
  }

  it('creates a category and a brand under their English plural paths', async () => {
    const { app, adminToken } = bookshop();
    const category = await call(app, {
      method: 'POST',
      url: '/api/categories',
      headers: bearer(adminToken),
      payload: { name: 'Books' },
    });
    expect(category.status).toBe(201);
    expect(category.headers.location).toBe('/api/categories/1');
    expect(category.body).toEqual({
      '@context': '/api/contexts/Category',
      '@id': '/api/categories/1',
      '@type': 'Category',
      id: 1,
      name: 'Books',
    });

    const brand = await call(app, {
      method: 'POST',
      url: '/api/brands',
      headers: bearer(adminToken),
      payload: { name: 'Penguin' },
    });
    expect(brand.status).toBe(201);
    expect(brand.headers.location).toBe('/api/brands/1');
    expect(brand.body).toEqual({
      '@context': '/api/contexts/Brand',
      '@id': '/api/brands/1',
      '@type': 'Brand',
      id: 1,
      name: 'Penguin',
    });
  });

  it('creates a product with the creation date it is given and its category and brand embedded', async () => {
    const { app, admin, reader } = await catalog();
    const response = await call(app, {
      method: 'POST',
      url: '/api/products',
      headers: admin,
      payload: {
        name: 'Dune (paperback)',
        price: 10.99,
        createdAt: '2024-03-01T10:00:00+00:00',
        category: '/api/categories/1',
        brand: '/api/brands/1',
      },
    });
    expect(response.status).toBe(201);
    expect(response.headers.location).toBe('/api/products/1');
    expect(response.body).toEqual({
      '@context': '/api/contexts/Product',
      '@id': '/api/products/1',
      '@type': 'Product',
      id: 1,
      name: 'Dune (paperback)',
      price: 10.99,
      createdAt: '2024-03-01T10:00:00+00:00',
      category: { '@id': '/api/categories/1', '@type': 'Category', id: 1, name: 'Books' },
      brand: { '@id': '/api/brands/1', '@type': 'Brand', id: 1, name: 'Penguin' },
    });
    expect((await call(app, { method: 'GET', url: '/api/products/1', headers: reader })).body).toEqual(response.body);
  });

  it('dates a product created without a creation date now', async () => {
    const { app, admin } = await catalog();
    const before = Date.now();
    const response = await call(app, {
      method: 'POST',
      url: '/api/products',
      headers: admin,
      payload: { name: 'Pocket notebook', price: 14.5, category: '/api/categories/2', brand: '/api/brands/2' },
    });
    expect(response.status).toBe(201);
    expect(response.body).toEqual({
      '@context': '/api/contexts/Product',
      '@id': '/api/products/1',
      '@type': 'Product',
      id: 1,
      name: 'Pocket notebook',
      price: 14.5,
      createdAt: expect.any(String),
      category: { '@id': '/api/categories/2', '@type': 'Category', id: 2, name: 'Stationery' },
      brand: { '@id': '/api/brands/2', '@type': 'Brand', id: 2, name: 'Moleskine' },
    });
    expect(response.body.createdAt).toMatch(DATETIME);
    const createdAt = Date.parse(response.body.createdAt);
    expect(createdAt).toBeGreaterThanOrEqual(before - 1000);
    expect(createdAt).toBeLessThanOrEqual(Date.now() + 1000);
  });

  it('replaces a product with PUT: left-out fields go back to their default, the creation date is kept', async () => {
    const { app, admin, adminToken, reader } = await catalog();
    await create(
      app,
      'products',
      {
        name: 'Dune (paperback)',
        price: 10.99,
        createdAt: '2024-03-01T10:00:00+00:00',
        category: '/api/categories/1',
        brand: '/api/brands/1',
      },
      adminToken,
    );

    const response = await call(app, {
      method: 'PUT',
      url: '/api/products/1',
      headers: admin,
      payload: { name: 'Dune (hardcover)', price: 25, createdAt: '2030-01-01T00:00:00+00:00', brand: '/api/brands/2' },
    });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      '@context': '/api/contexts/Product',
      '@id': '/api/products/1',
      '@type': 'Product',
      id: 1,
      name: 'Dune (hardcover)',
      price: 25,
      createdAt: '2024-03-01T10:00:00+00:00',
      brand: { '@id': '/api/brands/2', '@type': 'Brand', id: 2, name: 'Moleskine' },
    });
    expect((await call(app, { method: 'GET', url: '/api/products/1', headers: reader })).body).toEqual(response.body);
  });

  it('changes only the price with a merge-patch PATCH and ignores a new creation date', async () => {
    const { app, admin, adminToken } = await catalog();
    await create(
      app,
      'products',
      {
        name: 'Dune (paperback)',
        price: 10.99,
        createdAt: '2024-03-01T10:00:00+00:00',
        category: '/api/categories/1',
        brand: '/api/brands/1',
      },
      adminToken,
    );

    const response = await call(app, {
      method: 'PATCH',
      url: '/api/products/1',
      headers: { ...admin, ...MERGE_PATCH },
      payload: JSON.stringify({ price: 8.5, createdAt: '2030-01-01T00:00:00+00:00' }),
    });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      '@context': '/api/contexts/Product',
      '@id': '/api/products/1',
      '@type': 'Product',
      id: 1,
      name: 'Dune (paperback)',
      price: 8.5,
      createdAt: '2024-03-01T10:00:00+00:00',
      category: { '@id': '/api/categories/1', '@type': 'Category', id: 1, name: 'Books' },
      brand: { '@id': '/api/brands/1', '@type': 'Brand', id: 1, name: 'Penguin' },
    });
  });

  it('refuses a category IRI that names a brand, with a violation on category', async () => {
    const { app, admin } = await catalog();
    const response = await call(app, {
      method: 'POST',
      url: '/api/products',
      headers: admin,
      payload: { name: 'Pen', price: 2, category: '/api/brands/1' },
    });
    expect(response.status).toBe(400);
    expect(response.body.violations).toEqual([
      {
        propertyPath: 'category',
        message: 'IRI "/api/brands/1" is not an item of type "Category".',
        code: 'a3a2b3a1-7c49-4c5c-9d7e-2f0c6f1e4d10',
      },
    ]);
  });

  it('serves the products as a Hydra collection with category and brand embedded', async () => {
    const { app, adminToken, reader } = await catalog();
    await create(
      app,
      'products',
      {
        name: 'Dune (paperback)',
        price: 10.99,
        createdAt: '2024-03-01T10:00:00+00:00',
        category: '/api/categories/1',
        brand: '/api/brands/1',
      },
      adminToken,
    );
    await create(
      app,
      'products',
      {
        name: 'Pocket notebook',
        price: 14.5,
        createdAt: '2024-03-02T09:30:00.250+00:00',
        category: '/api/categories/2',
        brand: '/api/brands/2',
      },
      adminToken,
    );

    const response = await call(app, { method: 'GET', url: '/api/products', headers: reader });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      '@context': '/api/contexts/Product',
      '@id': '/api/products',
      '@type': 'hydra:Collection',
      'hydra:totalItems': 2,
      'hydra:member': [
        {
          '@id': '/api/products/1',
          '@type': 'Product',
          id: 1,
          name: 'Dune (paperback)',
          price: 10.99,
          createdAt: '2024-03-01T10:00:00+00:00',
          category: { '@id': '/api/categories/1', '@type': 'Category', id: 1, name: 'Books' },
          brand: { '@id': '/api/brands/1', '@type': 'Brand', id: 1, name: 'Penguin' },
        },
        {
          '@id': '/api/products/2',
          '@type': 'Product',
          id: 2,
          name: 'Pocket notebook',
          price: 14.5,
          createdAt: '2024-03-02T09:30:00.250+00:00',
          category: { '@id': '/api/categories/2', '@type': 'Category', id: 2, name: 'Stationery' },
          brand: { '@id': '/api/brands/2', '@type': 'Brand', id: 2, name: 'Moleskine' },
        },
      ],
      'hydra:search': expect.objectContaining({ '@type': 'hydra:IriTemplate' }),
    });
  });

  it('deletes a brand with 204 and then answers 404 for it', async () => {
    const { app, admin } = await catalog();
    expect((await call(app, { method: 'DELETE', url: '/api/brands/2', headers: admin })).status).toBe(204);
    expect((await call(app, { method: 'GET', url: '/api/brands/2' })).status).toBe(404);
    const list = await call(app, { method: 'GET', url: '/api/brands' });
    expect(list.body['hydra:member']).toEqual([{ '@id': '/api/brands/1', '@type': 'Brand', id: 1, name: 'Penguin' }]);
  });
});
