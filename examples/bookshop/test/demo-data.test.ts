/**
 * The demo data command loads its data set through the API, as an admin (categories, brands and products are
 * admin-only writes), and a second run changes nothing. `runDemo` is what `pnpm --filter bookshop demo` runs; the
 * compiled command is started once as a child process too.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildBookshop } from '../src/app.js';
import { loadDemoData, runDemo } from '../src/demo-data.js';
import { demoJs, ensureBuilt, startNode } from './compiled.js';
import { bearer, call, databases, registerAndLogin, sharedDatabase, TEST_JWT_SECRET, useBookshop } from './support.js';

describe.each(databases)('the demo data on $name', (database) => {
  const bookshop = useBookshop(database);

  it('loads authors, books, categories, brands and products, related to each other', async () => {
    const { app, adminToken } = bookshop();
    const result = await loadDemoData(app, adminToken);
    expect(result).toEqual({ loaded: true, created: { authors: 3, books: 5, categories: 3, brands: 3, products: 6 } });

    const totals: Record<string, number> = {};
    for (const collection of ['authors', 'books', 'categories', 'brands', 'products', 'users']) {
      const response = await call(app, { method: 'GET', url: `/api/${collection}`, headers: bearer(adminToken) });
      expect(response.status, collection).toBe(200);
      totals[collection] = response.body['hydra:totalItems'];
    }
    // The one user is the admin the test bookshop was started with: the demo data creates none.
    expect(totals).toEqual({ authors: 3, books: 5, categories: 3, brands: 3, products: 6, users: 1 });
    const dune = (await call(app, { method: 'GET', url: '/api/books/3' })).body;
    expect(dune).toMatchObject({ title: 'Dune', author: '/api/authors/2' });
    const herbert = (await call(app, { method: 'GET', url: '/api/authors/2' })).body;
    expect(herbert).toMatchObject({ name: 'Frank Herbert', books: ['/api/books/3'] });
    const notebook = (await call(app, { method: 'GET', url: '/api/products/3', headers: bearer(adminToken) })).body;
    expect(notebook).toMatchObject({
      name: 'Classic notebook, large',
      price: 21.9,
      category: expect.objectContaining({ '@id': '/api/categories/2' }),
      brand: expect.objectContaining({ '@id': '/api/brands/2' }),
    });
  });

  it('loads nothing the second time', async () => {
    const { app, adminToken } = bookshop();
    await loadDemoData(app, adminToken);
    expect(await loadDemoData(app, adminToken)).toEqual({ loaded: false, created: {} });
    expect((await call(app, { method: 'GET', url: '/api/authors' })).body['hydra:totalItems']).toBe(3);
    expect(
      (await call(app, { method: 'GET', url: '/api/products', headers: bearer(adminToken) })).body['hydra:totalItems'],
    ).toBe(6);
  });

  it("stops with the API's answer when the token is not an admin's", async () => {
    const { app } = bookshop();
    const ann = await registerAndLogin(app, 'ann@example.com');
    // A bad token is refused on the first write, public ones included: nothing is created.
    await expect(loadDemoData(app, 'not-a-token')).rejects.toThrow(/^POST \/api\/authors answered 401: /);
    expect((await call(app, { method: 'GET', url: '/api/authors' })).body['hydra:totalItems']).toBe(0);
    // A user's token writes authors and books (no access rule), then meets the admin-only categories.
    await expect(loadDemoData(app, ann.token)).rejects.toThrow(/^POST \/api\/categories answered 403: /);
    expect((await call(app, { method: 'GET', url: '/api/categories' })).body['hydra:totalItems']).toBe(0);
  });
});

describe.each(databases)('the demo command (runDemo) on $name', (database) => {
  let shared: ReturnType<typeof sharedDatabase> | undefined;
  afterEach(async () => {
    await shared?.drop();
    shared = undefined;
  });
  const open = () => (shared = sharedDatabase(database)).options;
  /** The users left in the database, read by an admin of a bookshop started on it. */
  async function usersIn(where: { database: string; databaseSchema?: string }): Promise<string[]> {
    const app = await buildBookshop({
      ...where,
      jwtSecret: TEST_JWT_SECRET,
      admin: { email: 'reader@example.com', password: 'reader-password' },
    });
    try {
      const reader = await app.resourceApi.database.knex('user').where('email', 'reader@example.com').first();
      const list = await call(app, {
        method: 'GET',
        url: '/api/users?pagination=false',
        headers: bearer(await app.resourceApi.issueToken(reader)),
      });
      expect(list.status).toBe(200);
      return list.body['hydra:member']
        .map((user: { email: string }) => user.email)
        .filter((email: string) => email !== 'reader@example.com');
    } finally {
      await app.close();
    }
  }

  it('writes as a one-off admin and leaves no account behind', async () => {
    const where = open();
    expect(await runDemo(where)).toEqual({
      loaded: true,
      created: { authors: 3, books: 5, categories: 3, brands: 3, products: 6 },
    });
    expect(await usersIn(where)).toEqual([]);
    expect(await runDemo(where)).toEqual({ loaded: false, created: {} });
    expect(await usersIn(where)).toEqual([]);
  });

  it('writes as the admin of ADMIN_EMAIL / ADMIN_PASSWORD when given, and keeps it', async () => {
    const where = open();
    const admin = { email: 'owner@example.com', password: 'owner-password-1' };
    expect((await runDemo({ ...where, admin })).loaded).toBe(true);
    expect(await usersIn(where)).toEqual(['owner@example.com']);
    const app = await buildBookshop({ ...where, jwtSecret: TEST_JWT_SECRET });
    try {
      const login = await call(app, { method: 'POST', url: '/api/auth', payload: admin });
      expect(login.status).toBe(200);
      const products = await call(app, { method: 'GET', url: '/api/products', headers: bearer(login.body.token) });
      expect(products.body['hydra:totalItems']).toBe(6);
    } finally {
      await app.close();
    }
  });
});

describe('the compiled demo command', () => {
  it('loads the data set into DATABASE_URL without JWT_SECRET or an admin, and says so', async () => {
    await ensureBuilt();
    const dir = mkdtempSync(join(tmpdir(), 'bookshop-demo-'));
    try {
      const url = `sqlite:${join(dir, 'shop.db')}`;
      const first = startNode(demoJs, { DATABASE_URL: url });
      expect(await first.exit, first.output()).toBe(0);
      expect(first.output()).toContain(
        `Demo data loaded into ${url} (as a one-off admin, deleted again): 3 authors, 5 books, 3 categories, 3 brands, 6 products.`,
      );
      const second = startNode(demoJs, { DATABASE_URL: url });
      expect(await second.exit, second.output()).toBe(0);
      expect(second.output()).toContain(`Authors already exist in ${url}: the demo data was not loaded again.`);
      expect(
        await (async () => {
          const app = await buildBookshop({ database: url, jwtSecret: TEST_JWT_SECRET });
          try {
            return (await call(app, { method: 'GET', url: '/api/books' })).body['hydra:totalItems'];
          } finally {
            await app.close();
          }
        })(),
      ).toBe(5);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);
});
