// @ts-nocheck — compiled next to the client generated for the bookshop (client.test.ts strips this line), not here.
/**
 * Typed use of the bookshop's generated client: what must compile, and, on each `@ts-expect-error` line, what the
 * types must refuse (tsc fails on a directive with no error under it).
 */
import {
  ApiClientError,
  createClient,
  type Book,
  type BookCreate,
  type BookListParams,
  type HydraCollection,
  type Product,
  type ProductUpdate,
} from './api/index.js';

const client = createClient({ baseUrl: 'http://127.0.0.1:8000', token: () => undefined });

export async function compiles(): Promise<string[]> {
  const page: HydraCollection<Book> = await client.books.list({
    title: 'dune',
    order: { title: 'desc' },
    'author.name': ['le guin', 'herbert'],
    page: 2,
    itemsPerPage: 5,
  });
  const first: Book | undefined = page['hydra:member'][0];
  const total: number | undefined = page['hydra:totalItems'];
  const created = await client.books.create({ title: 'Dune', author: '/api/authors/1' });
  const nested: BookCreate = { title: 'The Dispossessed', author: { name: 'Ursula K. Le Guin' } };
  const existing: BookCreate = { title: 'Dune Messiah', author: { '@id': '/api/authors/1', name: 'Frank Herbert' } };
  await client.books.create(nested);
  await client.books.create(existing);
  await client.books.update(created.id, { title: 'Dune (1965)' }, { ifMatch: '"etag"' });
  await client.books.replace(created['@id'], { title: 'Dune', author: created.author });
  await client.books.delete(created['@id']);
  const books = await client.authors.books(1, { order: { id: 'asc' } });
  const products = await client.products.list({
    price: { gte: 1, lt: 10, between: '1..5' },
    order: { price: 'asc' },
    'brand.name': 'acme',
    pagination: false,
  });
  const product: Product | undefined = products['hydra:member'][0];
  const brand: string | undefined = product?.brand?.name;
  const patch: ProductUpdate = { category: null, price: 3.5 };
  await client.products.update(1, patch);
  const params: BookListParams = { q: 'dune', author: ['/api/authors/1', '/api/authors/2'] };
  await client.books.list(params);
  const token: string = await client.login({ email: 'admin@example.com', password: 'secret' });
  client.setToken(undefined);
  await client.comments.create({ content: 'A first comment.' });
  await client.users.create({ email: 'someone@example.com', plainPassword: 'a long password' });
  await client.users.replace(2, { email: 'someone@example.com' });
  try {
    await client.books.get(1);
  } catch (error) {
    if (error instanceof ApiClientError)
      return [String(error.status), ...error.violations.map((v) => `${v.propertyPath}: ${v.message}`)];
  }
  return [first?.title ?? '', String(total), String(books['hydra:member'].length), brand ?? '', token];
}

export async function refuses(book: Book, product: Product): Promise<void> {
  // @ts-expect-error — no field `isbn` on a book
  await client.books.create({ title: 'Dune', author: '/api/authors/1', isbn: '978-0441013593' });
  // @ts-expect-error — `title` is required on create
  await client.books.create({ author: '/api/authors/1' });
  // @ts-expect-error — `author` must be an IRI or an author, not a number
  await client.books.create({ title: 'Dune', author: 1 });
  // @ts-expect-error — a nested author needs its `name` when it is created
  await client.books.create({ title: 'Dune', author: {} });
  // @ts-expect-error — a title is a string
  await client.books.update(1, { title: 42 });
  // @ts-expect-error — a book as read has no `name`
  void book.name;
  // @ts-expect-error — a product's category is embedded (an object), not an IRI string
  const iri: string | undefined = product.category;
  void iri;
  // @ts-expect-error — `up` is no direction
  await client.books.list({ order: { title: 'up' } });
  // @ts-expect-error — books cannot be ordered by author
  await client.books.list({ order: { author: 'asc' } });
  // @ts-expect-error — there is no `isbn` filter
  await client.books.list({ isbn: '978-0441013593' });
  // @ts-expect-error — range filters take numbers
  await client.products.list({ price: { gt: 'cheap' } });
  // @ts-expect-error — the page is a number
  await client.books.list({ page: '2' });
  // @ts-expect-error — pagination is a boolean
  await client.products.list({ pagination: 'off' });
  // @ts-expect-error — `createdAt` of a comment is not written by clients
  await client.comments.create({ content: 'A first comment.', createdAt: '2024-01-01T00:00:00+00:00' });
  // @ts-expect-error — `isCompany` is accepted on create only
  await client.users.update(2, { isCompany: true });
  // @ts-expect-error — the password is required on registration
  await client.users.create({ email: 'someone@example.com' });
  // @ts-expect-error — books have no subresource
  await client.books.comments(1);
  // @ts-expect-error — login needs the password
  await client.login({ email: 'admin@example.com' });
}
