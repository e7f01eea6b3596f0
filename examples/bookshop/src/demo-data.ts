/**
 * Loads a small demo data set (authors, books, categories, brands, products) into the database of `DATABASE_URL`
 * (default: the SQLite file under `examples/bookshop/var/`): `pnpm --filter bookshop demo`.
 *
 * Every item is created through the API itself (`inject()` calls on the app), so it goes through the framework's
 * deserialization, validation, access rules and persistence like any client request. Running it again when authors
 * already exist changes nothing.
 *
 * Categories, brands and products may only be written by an admin, so the command writes as one: it starts the app
 * with an `admin` (the option behind `ADMIN_EMAIL` / `ADMIN_PASSWORD`), logs in with `POST /api/auth` and sends
 * `Authorization: Bearer <token>` with every request.
 * - With `ADMIN_EMAIL` and `ADMIN_PASSWORD` set, that admin is used (created, or its password set, as the server does
 *   at start) and kept.
 * - Otherwise a one-off admin is created with a random e-mail and a random password that are never shown, and it is
 *   deleted again (`DELETE /api/users/{id}`) when the command ends: the command leaves no account behind.
 * Its tokens never leave the process, so it signs them with a random secret of its own: `JWT_SECRET` is not needed.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { pathToFileURL } from 'node:url';
import { buildBookshop } from './app.js';
import { databaseUrl, firstAdmin, redact } from './config.js';

const AUTHORS = ['Ursula K. Le Guin', 'Frank Herbert', 'Octavia E. Butler'];
const BOOKS: ReadonlyArray<{ title: string; author: number }> = [
  { title: 'A Wizard of Earthsea', author: 0 },
  { title: 'The Left Hand of Darkness', author: 0 },
  { title: 'Dune', author: 1 },
  { title: 'Kindred', author: 2 },
  { title: 'Parable of the Sower', author: 2 },
];
const CATEGORIES = ['Books', 'Stationery', 'Games'];
const BRANDS = ['Penguin', 'Moleskine', 'Ravensburger'];
const PRODUCTS: ReadonlyArray<{ name: string; price: number; category: number; brand: number }> = [
  { name: 'Dune (paperback)', price: 10.99, category: 0, brand: 0 },
  { name: 'Kindred (paperback)', price: 9.5, category: 0, brand: 0 },
  { name: 'Classic notebook, large', price: 21.9, category: 1, brand: 1 },
  { name: 'Pocket notebook', price: 14.5, category: 1, brand: 1 },
  { name: 'Jigsaw puzzle, 1000 pieces', price: 17, category: 2, brand: 2 },
  { name: 'Labyrinth board game', price: 34.99, category: 2, brand: 2 },
];

export interface DemoDataResult {
  /** False when authors existed already and nothing was loaded. */
  readonly loaded: boolean;
  /** How many items of each collection were created. */
  readonly created: Readonly<Record<string, number>>;
}

/**
 * POSTs one item as the token's user and returns its IRI; any other answer than 201 stops the load with the API's
 * reason.
 */
async function create(
  app: FastifyInstance,
  token: string,
  collection: string,
  payload: Record<string, unknown>,
): Promise<string> {
  const response = await app.inject({
    method: 'POST',
    url: `/api/${collection}`,
    headers: { authorization: `Bearer ${token}` },
    payload,
  });
  if (response.statusCode !== 201) {
    throw new Error(`POST /api/${collection} answered ${response.statusCode}: ${response.body}`);
  }
  return (response.json() as { '@id': string })['@id'];
}

/**
 * Loads the demo data set through the API of `app`, unless authors exist already. `token` is the bearer token of an
 * admin (from `POST /api/auth` or `app.resourceApi.issueToken`): categories, brands and products are admin-only writes.
 */
export async function loadDemoData(app: FastifyInstance, token: string): Promise<DemoDataResult> {
  const existing = await app.inject({ method: 'GET', url: '/api/authors?itemsPerPage=0' });
  if (existing.statusCode !== 200)
    throw new Error(`GET /api/authors answered ${existing.statusCode}: ${existing.body}`);
  if ((existing.json() as { 'hydra:totalItems': number })['hydra:totalItems'] > 0)
    return { loaded: false, created: {} };

  const authors: string[] = [];
  for (const name of AUTHORS) authors.push(await create(app, token, 'authors', { name }));
  for (const book of BOOKS) await create(app, token, 'books', { title: book.title, author: authors[book.author] });
  const categories: string[] = [];
  for (const name of CATEGORIES) categories.push(await create(app, token, 'categories', { name }));
  const brands: string[] = [];
  for (const name of BRANDS) brands.push(await create(app, token, 'brands', { name }));
  for (const product of PRODUCTS) {
    await create(app, token, 'products', {
      name: product.name,
      price: product.price,
      category: categories[product.category],
      brand: brands[product.brand],
    });
  }
  return {
    loaded: true,
    created: {
      authors: AUTHORS.length,
      books: BOOKS.length,
      categories: CATEGORIES.length,
      brands: BRANDS.length,
      products: PRODUCTS.length,
    },
  };
}

/** `POST /api/auth`: the token of `email`, or an error with the API's answer. */
async function logIn(app: FastifyInstance, email: string, password: string): Promise<string> {
  const response = await app.inject({ method: 'POST', url: '/api/auth', payload: { email, password } });
  if (response.statusCode !== 200) throw new Error(`POST /api/auth answered ${response.statusCode}: ${response.body}`);
  return (response.json() as { token: string }).token;
}

export interface DemoOptions {
  /** The database URL (as `DATABASE_URL`). */
  readonly database: string;
  /** PostgreSQL only: the schema of the tables. */
  readonly databaseSchema?: string;
  /**
   * The admin to write as (as `ADMIN_EMAIL` / `ADMIN_PASSWORD`); kept. Without one, a one-off admin is used and
   * deleted.
   */
  readonly admin?: { readonly email: string; readonly password: string };
}

/** What `pnpm --filter bookshop demo` does: starts the app with an admin, loads the data set as that admin, closes. */
export async function runDemo(options: DemoOptions): Promise<DemoDataResult> {
  const oneOff = options.admin === undefined;
  const admin = options.admin ?? {
    email: `demo-loader-${randomBytes(6).toString('hex')}@bookshop.invalid`,
    password: randomBytes(24).toString('base64url'),
  };
  const app = await buildBookshop({
    database: options.database,
    ...(options.databaseSchema === undefined ? {} : { databaseSchema: options.databaseSchema }),
    jwtSecret: randomBytes(48).toString('base64url'),
    admin,
  });
  try {
    const token = await logIn(app, admin.email, admin.password);
    try {
      return await loadDemoData(app, token);
    } finally {
      if (oneOff) await removeOneOffAdmin(app, token);
    }
  } finally {
    await app.close();
  }
}

/** Deletes the one-off admin through the API (`DELETE /api/users/{id}`, as itself). */
async function removeOneOffAdmin(app: FastifyInstance, token: string): Promise<void> {
  const sub = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as { sub: string };
  const response = await app.inject({
    method: 'DELETE',
    url: `/api/users/${sub.sub}`,
    headers: { authorization: `Bearer ${token}` },
  });
  if (response.statusCode !== 204)
    throw new Error(`DELETE /api/users/${sub.sub} answered ${response.statusCode}: ${response.body}`);
}

async function main(): Promise<void> {
  const database = databaseUrl();
  const admin = firstAdmin();
  const result = await runDemo({ database, ...(admin ? { admin } : {}) });
  const as = admin ? `as the admin ${admin.email}` : 'as a one-off admin, deleted again';
  if (result.loaded) {
    const counts = Object.entries(result.created)
      .map(([collection, count]) => `${count} ${collection}`)
      .join(', ');
    console.log(`Demo data loaded into ${redact(database)} (${as}): ${counts}.`);
  } else {
    console.log(`Authors already exist in ${redact(database)}: the demo data was not loaded again.`);
  }
}

// Run only when started as a program (`node dist/demo-data.js`), not when imported by a test.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error: unknown) => {
    console.error('The demo data could not be loaded:', error);
    process.exit(1);
  });
}
