// @ts-nocheck — compiled next to the client generated for the bookshop (client.test.ts strips this line), not here.
/**
 * The bookshop's generated client against the running app: every call typed by the generated types, every answer
 * handed back for client.test.ts to check. `admin` is the user the test bookshop starts with.
 */
import { ApiClientError, createClient, type Book } from './api/index.js';

/** The status and violations of a call that must fail, or 'no error'. */
async function failure(
  call: () => Promise<unknown>,
): Promise<{ status: number; violations: string[]; detail: string | undefined } | 'no error'> {
  try {
    await call();
    return 'no error';
  } catch (error) {
    if (!(error instanceof ApiClientError)) throw error;
    return {
      status: error.status,
      violations: error.violations.map((v) => `${v.propertyPath}: ${v.message}`),
      detail: error.detail,
    };
  }
}

export async function scenario(baseUrl: string, admin: { email: string; password: string }) {
  const client = createClient({ baseUrl });
  const herbert = await client.authors.create({ name: 'Frank Herbert' });
  const dune = await client.books.create({ title: 'Dune', author: herbert['@id'] });
  const children = await client.books.create({ title: 'Children of Dune', author: herbert['@id'] });
  // A nested author, created with the book (cascade persist).
  const dispossessed = await client.books.create({ title: 'The Dispossessed', author: { name: 'Ursula K. Le Guin' } });
  const leGuin = await client.authors.get(dispossessed.author);

  const titles = (books: Book[]) => books.map((b) => b.title);
  const filtered = await client.books.list({ title: 'dune', order: { title: 'desc' } });
  const byAuthorName = await client.books.list({ 'author.name': 'le guin' });
  const anyOf = await client.books.list({ title: ['children', 'dispossessed'], order: { id: 'asc' } });
  const paged = await client.books.list({ order: { id: 'asc' }, itemsPerPage: 2, page: 2 });
  const ofHerbert = await client.authors.books(herbert.id, { order: { id: 'desc' } });

  const read = await client.books.get(dune.id);
  const readByIri = await client.books.get(dune['@id']);
  // Conditional writes: the ETag of a read, seen through onResponse, sent back as If-Match.
  const seen: { etag: string | null } = { etag: null };
  await client.books.get(dune.id, { onResponse: (response) => void (seen.etag = response.headers.get('etag')) });
  const stale = await failure(() => client.books.update(dune.id, { title: 'Dune (stale)' }, { ifMatch: '"stale"' }));
  const patched = await client.books.update(dune.id, { title: 'Dune (1965)' }, { ifMatch: seen.etag ?? undefined });
  const replaced = await client.authors.replace(herbert['@id'], { name: 'Frank Patrick Herbert' });
  const deleted = await client.books.delete(children.id);
  const gone = await failure(() => client.books.get(children.id));
  const invalid = await failure(() => client.books.create({ title: 'Du', author: herbert['@id'] }));
  // An IRI of another collection is refused before any request.
  const wrongIri = await client.books.get('/api/authors/1').then(
    () => 'no error',
    (error: Error) => `${error.name}: ${error.message}`,
  );

  // Security: products need ROLE_USER, brands' writes ROLE_ADMIN.
  const anonymous = await failure(() => client.products.list());
  const registered = await client.users.create({ email: 'reader@example.com', plainPassword: 'correct horse battery' });
  await client.login({ email: 'reader@example.com', password: 'correct horse battery' });
  const asUser = await client.products.list();
  const forbidden = await failure(() => client.brands.create({ name: 'Acme' }));
  const badLogin = await failure(() => client.login({ email: admin.email, password: 'not the password' }));

  const asAdmin = createClient({ baseUrl, token: await createClient({ baseUrl }).login(admin) });
  const acme = await asAdmin.brands.create({ name: 'Acme' });
  const tools = await asAdmin.categories.create({ name: 'Tools' });
  await asAdmin.products.create({ name: 'Hammer', price: 12.5, brand: acme['@id'], category: tools['@id'] });
  await asAdmin.products.create({ name: 'Nail', price: 0.05, brand: acme['@id'] });
  await asAdmin.products.create({ name: 'Saw', price: 30, category: tools['@id'] });
  const range = await asAdmin.products.list({ price: { gte: 0.01, lt: 20 }, order: { price: 'desc' } });
  const between = await asAdmin.products.list({ price: { between: '10..40' }, order: { name: 'asc' } });
  const ofCategory = await asAdmin.categories.products(tools.id, { 'brand.name': 'acm' });
  const hammer = range['hydra:member'][0];

  return {
    herbert,
    dune,
    leGuin,
    filtered: { titles: titles(filtered['hydra:member']), total: filtered['hydra:totalItems'] },
    byAuthorName: titles(byAuthorName['hydra:member']),
    anyOf: titles(anyOf['hydra:member']),
    paged: { titles: titles(paged['hydra:member']), view: paged['hydra:view'] },
    ofHerbert: titles(ofHerbert['hydra:member']),
    read,
    readByIri,
    etag: seen.etag,
    stale,
    patched,
    replaced,
    deleted,
    gone,
    invalid,
    wrongIri,
    anonymous,
    registered,
    asUser: asUser['hydra:member'].length,
    forbidden,
    badLogin,
    range: range['hydra:member'].map((p) => `${p.name} ${p.price}`),
    hammer: { brand: hammer?.brand?.name, category: hammer?.category?.name },
    between: between['hydra:member'].map((p) => p.name),
    ofCategory: ofCategory['hydra:member'].map((p) => p.name),
  };
}
