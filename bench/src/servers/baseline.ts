/**
 * The baseline: the book endpoints written by hand, the way one would without a framework — Fastify 5, knex 3 and
 * better-sqlite3 (or pg), one handler per route, SQL built by knex per request, bodies as object literals sent with
 * Fastify's default serializer. It answers the bench's workloads with the same JSON-LD bodies as the example app.
 * On MariaDB it is what one would write with knex's mysql2 client: a pool of ten, nothing set per connection.
 *
 *   GET  /api/books                 a page with its total; `title` (partial, any case), `order[title]`, `page`,
 *   `itemsPerPage` GET  /api/books-with-authors    the same page with each author embedded (W4), links written as
 *   `/api/books` GET  /api/books/:id             one book
 *   POST /api/books                 creates a book: title (not blank, 3 characters or more), author IRI (must exist)
 *
 * Settings: `BENCH_DATABASE` (`sqlite:/file`, `postgres://…` or `mysql://…`), `BENCH_SCHEMA` (PostgreSQL's schema,
 * MariaDB's database), `BENCH_WAL=1` (SQLite's
 * WAL journal; otherwise the file's own journal mode, the default rollback journal).
 */
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import knexFactory, { type Knex } from 'knex';
import { mariadbConnection } from '../mariadb-connection.js';
import { serve, setting } from './serve.js';

const database = setting('BENCH_DATABASE');
const postgres = database.startsWith('postgres');
const mariadb = /^(mysql|mariadb):/.test(database);
const wal = process.env.BENCH_WAL === '1';

const knex: Knex = postgres
  ? knexFactory({
      client: 'pg',
      connection: database,
      searchPath: [setting('BENCH_SCHEMA')],
      pool: { min: 0, max: 10 },
    })
  : mariadb
    ? knexFactory({
        client: 'mysql2',
        connection: mariadbConnection(database, setting('BENCH_SCHEMA')),
        pool: { min: 0, max: 10 },
      })
    : knexFactory({
        client: 'better-sqlite3',
        connection: { filename: database.replace(/^sqlite:/, '') },
        useNullAsDefault: true,
        pool: {
          min: 1,
          max: 1,
          afterCreate(
            connection: { pragma(source: string): unknown },
            done: (error: Error | null, connection: unknown) => void,
          ) {
            connection.pragma('foreign_keys = ON');
            if (wal) connection.pragma('journal_mode = WAL');
            done(null, connection);
          },
        },
      });

const CONTENT_TYPE = 'application/ld+json; charset=utf-8';

// The search template of the book collection, as the example app describes its filters.
const SEARCH = {
  '@type': 'hydra:IriTemplate',
  'hydra:template': '/api/books{?q,order[id],order[title],author,author[],author.name,author.name[],title,title[]}',
  'hydra:variableRepresentation': 'BasicRepresentation',
  'hydra:mapping': [
    ['q', null],
    ['order[id]', 'id'],
    ['order[title]', 'title'],
    ['author', 'author'],
    ['author[]', 'author'],
    ['author.name', 'author.name'],
    ['author.name[]', 'author.name'],
    ['title', 'title'],
    ['title[]', 'title'],
  ].map(([variable, property]) => ({ '@type': 'IriTemplateMapping', variable, property, required: false })),
};

interface BookRow {
  id: number;
  title: string;
  author_id: number;
  author_name?: string;
}

function docsLink(request: FastifyRequest): string {
  return `<${request.protocol}://${request.host}/api/docs.jsonld>; rel="http://www.w3.org/ns/hydra/core#apiDocumentation"`;
}

function sendError(reply: FastifyReply, status: number, title: string, description: string) {
  return reply.code(status).type(CONTENT_TYPE).send({
    '@context': '/api/contexts/Error',
    '@type': 'hydra:Error',
    'hydra:title': title,
    'hydra:description': description,
  });
}

function bookItem(row: BookRow, withAuthor: boolean) {
  return {
    '@id': `/api/books/${row.id}`,
    '@type': 'Book',
    id: row.id,
    title: row.title,
    author: withAuthor
      ? { '@id': `/api/authors/${row.author_id}`, '@type': 'Author', id: row.author_id, name: row.author_name }
      : `/api/authors/${row.author_id}`,
  };
}

// View links keep the client's other parameters in their order, RFC 3986-encoded, with `page` last.
const encode = (value: string) =>
  encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

function pageView(rawQuery: string, page: number, lastPage: number) {
  const kept: string[] = [];
  for (const [key, value] of new URLSearchParams(rawQuery))
    if (key !== 'page') kept.push(`${encode(key)}=${encode(value)}`);
  const link = (n: number) => `/api/books?${[...kept, `page=${n}`].join('&')}`;
  const view: Record<string, string> = {
    '@id': link(page),
    '@type': 'hydra:PartialCollectionView',
    'hydra:first': link(1),
    'hydra:last': link(lastPage),
  };
  if (page > 1) view['hydra:previous'] = link(page - 1);
  if (page < lastPage) view['hydra:next'] = link(page + 1);
  return view;
}

function positiveInteger(value: unknown, fallback: number): number | undefined {
  if (value === undefined) return fallback;
  return typeof value === 'string' && /^[0-9]+$/.test(value) ? Number(value) : undefined;
}

type BookQuery = { page?: string; itemsPerPage?: string; title?: string; 'order[title]'?: string };

async function listBooks(
  request: FastifyRequest<{ Querystring: BookQuery }>,
  reply: FastifyReply,
  withAuthors: boolean,
) {
  const query = request.query;
  const page = positiveInteger(query.page, 1);
  const itemsPerPage = positiveInteger(query.itemsPerPage, 10);
  if (page === undefined || page < 1)
    return sendError(reply, 400, 'An error occurred', 'Page should not be less than 1 (query parameter "page").');
  if (itemsPerPage === undefined)
    return sendError(reply, 400, 'An error occurred', 'Query parameter "itemsPerPage" must be an integer.');
  const limit = Math.min(itemsPerPage, 100);
  const direction = query['order[title]']?.toLowerCase();
  if (direction !== undefined && direction !== 'asc' && direction !== 'desc')
    return sendError(reply, 400, 'An error occurred', 'order[title] must be asc or desc.');

  const books = knex('book');
  if (typeof query.title === 'string') {
    const pattern = `%${query.title.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    // MariaDB: the example app's columns compare bytes (a binary collation), so "any case" lowers both sides.
    if (mariadb) books.whereRaw("LOWER(book.title) LIKE LOWER(?) ESCAPE '\\\\'", [pattern]);
    else books.whereRaw(postgres ? "book.title ILIKE ? ESCAPE '\\'" : "book.title LIKE ? ESCAPE '\\'", [pattern]);
  }
  const [{ total }] = (await books.clone().count({ total: '*' })) as [{ total: number | string }];
  const rows: BookRow[] = withAuthors
    ? await books
        .clone()
        .join('author', 'author.id', 'book.author_id')
        .select('book.id', 'book.title', 'book.author_id', 'author.name as author_name')
        .modify((q) => {
          if (direction) q.orderBy('book.title', direction);
        })
        .orderBy('book.id', 'asc')
        .limit(limit)
        .offset((page - 1) * limit)
    : await books
        .clone()
        .select('id', 'title', 'author_id')
        .modify((q) => {
          if (direction) q.orderBy('title', direction);
        })
        .orderBy('id', 'asc')
        .limit(limit)
        .offset((page - 1) * limit);

  const totalItems = Number(total);
  const rawQuery = request.url.includes('?') ? request.url.slice(request.url.indexOf('?') + 1) : '';
  const body: Record<string, unknown> = {
    '@context': '/api/contexts/Book',
    '@id': '/api/books',
    '@type': 'hydra:Collection',
    'hydra:totalItems': totalItems,
    'hydra:member': rows.map((row) => bookItem(row, withAuthors)),
  };
  const lastPage = limit === 0 ? 1 : Math.max(1, Math.ceil(totalItems / limit));
  if (lastPage > 1 || rawQuery !== '') body['hydra:view'] = pageView(rawQuery, page, lastPage);
  body['hydra:search'] = SEARCH;
  return reply.type(CONTENT_TYPE).header('link', docsLink(request)).send(body);
}

await serve(async () => {
  const app = Fastify({ logger: false });
  app.addContentTypeParser('application/ld+json', { parseAs: 'string' }, app.getDefaultJsonParser('error', 'error'));
  app.addHook('onClose', () => knex.destroy());

  app.get<{ Querystring: BookQuery }>('/api/books', (request, reply) => listBooks(request, reply, false));
  app.get<{ Querystring: BookQuery }>('/api/books-with-authors', (request, reply) => listBooks(request, reply, true));

  app.get<{ Params: { id: string } }>('/api/books/:id', async (request, reply) => {
    const id = request.params.id;
    if (!/^[1-9][0-9]{0,9}$/.test(id) || Number(id) > 2147483647)
      return sendError(reply, 404, 'An error occurred', 'Not Found');
    const row = (await knex('book').where('id', Number(id)).first('id', 'title', 'author_id')) as BookRow | undefined;
    if (!row) return sendError(reply, 404, 'An error occurred', 'Not Found');
    return reply
      .type(CONTENT_TYPE)
      .header('link', docsLink(request))
      .send({ '@context': '/api/contexts/Book', ...bookItem(row, false) });
  });

  app.post<{ Body: { title?: unknown; author?: unknown } }>('/api/books', async (request, reply) => {
    const { title, author } = request.body ?? {};
    const violations: { propertyPath: string; message: string }[] = [];
    if (typeof title !== 'string' || title.trim() === '')
      violations.push({ propertyPath: 'title', message: 'This value should not be blank.' });
    else if ([...title].length < 3)
      violations.push({
        propertyPath: 'title',
        message: 'This value is too short. It should have 3 characters or more.',
      });
    const authorId = typeof author === 'string' ? /^\/api\/authors\/([1-9][0-9]{0,9})$/.exec(author)?.[1] : undefined;
    if (authorId === undefined)
      violations.push({ propertyPath: 'author', message: 'This value should be a valid IRI of an Author.' });
    else if (!(await knex('author').where('id', Number(authorId)).first('id')))
      violations.push({ propertyPath: 'author', message: `Item not found for "${String(author)}".` });
    if (violations.length > 0) {
      return reply
        .code(400)
        .type(CONTENT_TYPE)
        .send({ '@context': '/api/contexts/ConstraintViolationList', '@type': 'ConstraintViolationList', violations });
    }
    const [inserted] = await knex('book').insert({ title, author_id: Number(authorId) }, ['id']);
    const id = Number(typeof inserted === 'object' ? inserted.id : inserted);
    const item = {
      '@context': '/api/contexts/Book',
      ...bookItem({ id, title: title as string, author_id: Number(authorId) }, false),
    };
    return reply
      .code(201)
      .type(CONTENT_TYPE)
      .header('location', `/api/books/${id}`)
      .header('link', docsLink(request))
      .send(item);
  });

  await knex.raw('select 1'); // open the connection (and set the pragmas) before the first request
  return app;
});
