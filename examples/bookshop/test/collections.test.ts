/** The contract's filters, sorting and pagination, end to end, on SQLite and PostgreSQL. */
import { describe, expect, it } from 'vitest';
import { bearer, call, databases, registerAndLogin, useBookshop } from './support.js';

describe.each(databases)('bookshop collections on $name', (database) => {
  const shop = useBookshop(database);
  /** A POST, anonymous unless a token is given (authors and books have no access rule). */
  const post = (url: string, payload: object, token?: string) =>
    call(shop().app, { method: 'POST', url, payload, ...(token ? { headers: bearer(token) } : {}) });
  /** The admin, for the admin-only writes (categories, brands, products). */
  const asAdmin = (url: string, payload: object) => post(url, payload, shop().adminToken);
  /** A GET, anonymous unless a token is given (products need ROLE_USER). */
  const list = async (url: string, field: string, token?: string) => {
    const response = await call(shop().app, { method: 'GET', url, ...(token ? { headers: bearer(token) } : {}) });
    expect(response.status, `${url}: ${response.text}`).toBe(200);
    return response.body['hydra:member'].map((m: Record<string, unknown>) => m[field]);
  };

  async function seedBooks() {
    for (const name of ['Ann Never', 'Victor Hugo', 'Zoë']) await post('/api/authors', { name });
    for (const [title, author] of [
      ['Verse', 1],
      ['never again', 2],
      ['Prose', 3],
      ['VERY old', 2],
    ] as const) {
      expect((await post('/api/books', { title, author: `/api/authors/${author}` })).status).toBe(201);
    }
  }

  it('filters books by title, partial and case-insensitive: "ver" finds "Verse" and "never"', async () => {
    await seedBooks();
    expect(await list('/api/books?title=ver', 'title')).toEqual(['Verse', 'never again', 'VERY old']);
  });

  it('filters books by author IRI or id, and by the author name, partial and case-insensitive', async () => {
    await seedBooks();
    expect(await list('/api/books?author=/api/authors/2', 'title')).toEqual(['never again', 'VERY old']);
    expect(await list('/api/books?author=2', 'title')).toEqual(['never again', 'VERY old']);
    expect(await list('/api/books?author.name=NEVER', 'title')).toEqual(['Verse']);
  });

  it('orders books and authors as the contract declares', async () => {
    await seedBooks();
    expect(await list('/api/books?order[title]=asc', 'title')).toEqual(['Prose', 'VERY old', 'Verse', 'never again']);
    expect(await list('/api/books?order[id]=desc', 'id')).toEqual([4, 3, 2, 1]);
    expect(await list('/api/authors?order[name]=desc', 'name')).toEqual(['Zoë', 'Victor Hugo', 'Ann Never']);
    expect(await list('/api/authors?name=o', 'name')).toEqual(['Victor Hugo', 'Zoë']);
  });

  it('finds books by title or author name with the custom q filter', async () => {
    await seedBooks();
    expect(await list('/api/books?q=hugo', 'title')).toEqual(['never again', 'VERY old']);
    expect(await list('/api/books?q=PROSE', 'title')).toEqual(['Prose']);
    expect((await call(shop().app, { method: 'GET', url: '/api/books?q=%20' })).status).toBe(400);
  });

  it('filters and orders products; pages them by 5, up to 50', async () => {
    for (const name of ['Books', 'Games']) expect((await asAdmin('/api/categories', { name })).status).toBe(201);
    for (const name of ['Acme', 'Globex']) expect((await asAdmin('/api/brands', { name })).status).toBe(201);
    for (let i = 1; i <= 12; i++) {
      const response = await asAdmin('/api/products', {
        name: i % 2 ? `Red thing ${i}` : `blue thing ${i}`,
        price: i * 10,
        createdAt: `2024-01-${String(i).padStart(2, '0')}T00:00:00Z`,
        category: `/api/categories/${i <= 6 ? 1 : 2}`,
        brand: `/api/brands/${i % 3 ? 1 : 2}`,
      });
      expect(response.status).toBe(201);
    }
    // Products are read by users (ROLE_USER).
    const { token } = await registerAndLogin(shop().app, 'reader@example.com');
    const page = await call(shop().app, { method: 'GET', url: '/api/products', headers: bearer(token) });
    expect(page.body['hydra:member']).toHaveLength(5);
    expect(page.body['hydra:totalItems']).toBe(12);
    expect(page.body['hydra:view']['hydra:last']).toBe('/api/products?page=3');
    expect(await list('/api/products?itemsPerPage=80', 'id', token)).toHaveLength(12);
    expect(await list('/api/products?name=RED&price[lte]=50', 'price', token)).toEqual([10, 30, 50]);
    expect(await list('/api/products?price[between]=30..50', 'price', token)).toEqual([30, 40, 50]);
    expect(await list('/api/products?price[gt]=100&price[lt]=120', 'price', token)).toEqual([110]);
    expect(await list('/api/products?price[gte]=110', 'price', token)).toEqual([110, 120]);
    expect(
      await list('/api/products?category=/api/categories/2&order[price]=desc&itemsPerPage=2', 'price', token),
    ).toEqual([120, 110]);
    expect(await list('/api/products?category.name=Games&itemsPerPage=50', 'id', token)).toEqual([7, 8, 9, 10, 11, 12]);
    expect(await list('/api/products?category.name=games', 'id', token)).toEqual([]);
    expect(await list('/api/products?brand.name=GLOB', 'id', token)).toEqual([3, 6, 9, 12]);
    expect(await list('/api/products?order[createdAt]=desc', 'id', token)).toEqual([12, 11, 10, 9, 8]);
    expect(await list('/api/products?order[name]=asc&itemsPerPage=3', 'name', token)).toEqual([
      'Red thing 1',
      'Red thing 11',
      'Red thing 3',
    ]);
    const bad = await call(shop().app, {
      method: 'GET',
      url: '/api/products?price[gte]=cheap',
      headers: bearer(token),
    });
    expect(bad.status).toBe(400);
    expect(bad.body.detail).toBe('Query parameter "price[gte]": expected a number, "cheap" given.');
  });

  it('filters comments by user IRI and orders them by creation date', async () => {
    // Users 2 and 3 (user 1 is the admin); a comment's user is whoever posts it.
    const a = await registerAndLogin(shop().app, 'a@example.com', { plainPassword: 'secret-one' });
    const b = await registerAndLogin(shop().app, 'b@example.com', { plainPassword: 'secret-two' });
    expect([a.iri, b.iri]).toEqual(['/api/users/2', '/api/users/3']);
    for (const [content, user] of [
      ['first', a],
      ['second', b],
      ['third', a],
    ] as const) {
      expect((await post('/api/comments', { content }, user.token)).status).toBe(201);
    }
    expect(await list('/api/comments?user=/api/users/2', 'content')).toEqual(['first', 'third']);
    expect(await list('/api/comments?user=/api/users/2&order[id]=desc', 'content')).toEqual(['third', 'first']);
    expect(await list('/api/comments?user=/api/users/3', 'content')).toEqual(['second']);
    expect(await list('/api/comments?order[createdAt]=desc&order[id]=desc', 'content')).toEqual([
      'third',
      'second',
      'first',
    ]);
  });

  it('describes the filters in hydra:search, so Hydra clients discover them', async () => {
    const response = await call(shop().app, {
      method: 'GET',
      url: '/api/products',
      headers: bearer(shop().adminToken),
    });
    expect(response.status).toBe(200);
    expect(response.body['hydra:search']['hydra:template']).toBe(
      '/api/products{?name,name[],category,category[],category.name,category.name[],brand.name,brand.name[],price[between],price[gt],price[gte],price[lt],price[lte],order[createdAt],order[price],order[name]}',
    );
  });

  it('answers 400 for a page below 1 or a negative itemsPerPage, and an empty page past the last', async () => {
    expect((await call(shop().app, { method: 'GET', url: '/api/books?page=0' })).status).toBe(400);
    expect((await call(shop().app, { method: 'GET', url: '/api/books?page=x' })).status).toBe(400);
    expect((await call(shop().app, { method: 'GET', url: '/api/books?itemsPerPage=-1' })).status).toBe(400);
    await seedBooks();
    const past = await call(shop().app, { method: 'GET', url: '/api/books?page=3' });
    expect(past.body['hydra:member']).toEqual([]);
    expect(past.body['hydra:totalItems']).toBe(4);
    expect(past.body['hydra:view']).not.toHaveProperty('hydra:next');
  });
});
