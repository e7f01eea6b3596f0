/**
 * SQL statements per request, counted in-process: the example app (and its W4 variant) built on a copy of the data,
 * with a listener on knex's `query` event, each request sent with `inject()`. W4 and W6 are counted at two page sizes
 * to show that embedding does not cost a query per item.
 */
import { buildBookshop } from 'bookshop/dist/app.js';
import type { FastifyInstance } from 'fastify';
import { JWT_SECRET } from './data.js';
import { buildEmbedApp } from './embed-app.js';

export interface StatementCount {
  readonly label: string;
  readonly request: string;
  readonly statements: number;
  readonly sql: readonly string[];
}

async function count(
  app: FastifyInstance,
  label: string,
  request: { method: 'GET' | 'POST'; url: string; payload?: string; contentType?: string },
): Promise<StatementCount> {
  const sql: string[] = [];
  const listener = (query: { sql: string }) => sql.push(query.sql);
  const { knex } = app.resourceApi.database;
  knex.on('query', listener);
  try {
    const response = await app.inject({
      method: request.method,
      url: request.url,
      headers: {
        accept: 'application/ld+json',
        ...(request.contentType ? { 'content-type': request.contentType } : {}),
      },
      ...(request.payload ? { payload: request.payload } : {}),
    });
    if (response.statusCode >= 300)
      throw new Error(
        `${request.method} ${request.url} answered ${response.statusCode}: ${response.body.slice(0, 300)}`,
      );
  } finally {
    knex.removeListener('query', listener);
  }
  const shown =
    request.payload && request.url === '/graphql'
      ? `POST /graphql ${(JSON.parse(request.payload) as { query: string }).query}`
      : `${request.method} ${request.url}`;
  return { label, request: shown, statements: sql.length, sql };
}

const graphql = (first: number) =>
  JSON.stringify({ query: `{ books(first: ${first}) { totalCount edges { node { id title author { name } } } } }` });

export async function countStatements(options: { bookshopFile: string; embedFile: string }): Promise<StatementCount[]> {
  const bookshop = await buildBookshop({ database: `sqlite:${options.bookshopFile}`, jwtSecret: JWT_SECRET });
  const embed = await buildEmbedApp({ database: `sqlite:${options.embedFile}`, jwtSecret: JWT_SECRET });
  // The same file as `embed` (read only here), with Book's collection paged otherwise.
  const partial = await buildEmbedApp({
    database: `sqlite:${options.embedFile}`,
    jwtSecret: JWT_SECRET,
    paging: 'client-partial',
  });
  const cursor = await buildEmbedApp({
    database: `sqlite:${options.embedFile}`,
    jwtSecret: JWT_SECRET,
    paging: 'cursor',
  });
  try {
    return [
      await count(bookshop, 'W1', { method: 'GET', url: '/api/books?page=3' }),
      await count(bookshop, 'W2', { method: 'GET', url: '/api/books?title=river&order%5Btitle%5D=desc' }),
      await count(bookshop, 'W3', { method: 'GET', url: '/api/books/1234' }),
      await count(embed, 'W4, 10 per page', { method: 'GET', url: '/api/books?page=3' }),
      await count(embed, 'W4, 50 per page', { method: 'GET', url: '/api/books?page=3&itemsPerPage=50' }),
      await count(bookshop, 'W5', {
        method: 'POST',
        url: '/api/books',
        payload: JSON.stringify({ title: 'Counted', author: '/api/authors/7' }),
        contentType: 'application/ld+json',
      }),
      await count(bookshop, 'W6, first 10', {
        method: 'POST',
        url: '/graphql',
        payload: graphql(10),
        contentType: 'application/json',
      }),
      await count(bookshop, 'W6, first 50', {
        method: 'POST',
        url: '/graphql',
        payload: graphql(50),
        contentType: 'application/json',
      }),
      await count(partial, 'partial page (no count)', { method: 'GET', url: '/api/books?page=3&partial=true' }),
      await count(cursor, 'W8-deep, cursor', { method: 'GET', url: '/api/books?id%5Bgt%5D=5000' }),
    ];
  } finally {
    await bookshop.close();
    await embed.close();
    await partial.close();
    await cursor.close();
  }
}
