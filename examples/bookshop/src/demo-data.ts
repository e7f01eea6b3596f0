/**
 * Loads a small demo data set (authors, books, categories, brands, products) into the database of `DATABASE_URL`
 * (default: the SQLite file under `examples/bookshop/var/`): `pnpm --filter bookshop demo`.
 *
 * Every item is created through the API itself (`inject()` calls on the app), so it goes through the framework's
 * deserialization, validation and persistence like any client request. Running it again when authors already exist
 * changes nothing.
 */
import type { FastifyInstance } from 'fastify';
import { pathToFileURL } from 'node:url';
import { buildBookshop } from './app.js';
import { databaseUrl, redact } from './config.js';

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

/** POSTs one item and returns its IRI; any other answer than 201 stops the load with the API's reason. */
async function create(app: FastifyInstance, collection: string, payload: Record<string, unknown>): Promise<string> {
  const response = await app.inject({ method: 'POST', url: `/api/${collection}`, payload });
  if (response.statusCode !== 201) {
    throw new Error(`POST /api/${collection} answered ${response.statusCode}: ${response.body}`);
  }
  return (response.json() as { '@id': string })['@id'];
}

/** Loads the demo data set through the API of `app`, unless authors exist already. */
export async function loadDemoData(app: FastifyInstance): Promise<DemoDataResult> {
  const existing = await app.inject({ method: 'GET', url: '/api/authors?itemsPerPage=0' });
  if (existing.statusCode !== 200) throw new Error(`GET /api/authors answered ${existing.statusCode}: ${existing.body}`);
  if ((existing.json() as { 'hydra:totalItems': number })['hydra:totalItems'] > 0) return { loaded: false, created: {} };

  const authors: string[] = [];
  for (const name of AUTHORS) authors.push(await create(app, 'authors', { name }));
  for (const book of BOOKS) await create(app, 'books', { title: book.title, author: authors[book.author] });
  const categories: string[] = [];
  for (const name of CATEGORIES) categories.push(await create(app, 'categories', { name }));
  const brands: string[] = [];
  for (const name of BRANDS) brands.push(await create(app, 'brands', { name }));
  for (const product of PRODUCTS) {
    await create(app, 'products', {
      name: product.name,
      price: product.price,
      category: categories[product.category],
      brand: brands[product.brand],
    });
  }
  return {
    loaded: true,
    created: { authors: AUTHORS.length, books: BOOKS.length, categories: CATEGORIES.length, brands: BRANDS.length, products: PRODUCTS.length },
  };
}

async function main(): Promise<void> {
  const database = databaseUrl();
  const app = await buildBookshop({ database });
  try {
    const result = await loadDemoData(app);
    if (result.loaded) {
      const counts = Object.entries(result.created).map(([collection, count]) => `${count} ${collection}`).join(', ');
      console.log(`Demo data loaded into ${redact(database)}: ${counts}.`);
    } else {
      console.log(`Authors already exist in ${redact(database)}: the demo data was not loaded again.`);
    }
  } finally {
    await app.close();
  }
}

// Run only when started as a program (`node dist/demo-data.js`), not when imported by a test.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error: unknown) => {
    console.error('The demo data could not be loaded:', error);
    process.exit(1);
  });
}
