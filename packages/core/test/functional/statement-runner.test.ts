/**
 * The statement runner (`state/knex/statements.ts`): on a database opened by the plugin, reads skip knex's runner (on
 * SQLite a cached prepared statement, on PostgreSQL a connection of knex's pool through pg, on MariaDB one through
 * mysql2), and they answer exactly what knex's runner answers: the same requests are checked against an app on a knex
 * instance handed in, which keeps knex's own path for everything. Writes on PostgreSQL and MariaDB stay with knex.
 */
import knexFactory, { type Knex } from 'knex';
import Fastify from 'fastify';
import { describe, expect, inject, it } from 'vitest';
import { openDatabase, resourceApi } from '@resource-api/core';
import { buildTestApp, testDatabases, createTestSchemaName } from '@resource-api/core/testing';
import { defineResource } from '@resource-api/core';
import { call } from '../helpers.js';

// Filters, an order and a subresource, so the reads include a filtered page and a page under a parent.
const Author = defineResource({
  name: 'Author',
  fields: { name: { type: 'string' }, books: { toMany: 'Book', mappedBy: 'author', subresource: true } },
});
const Book = defineResource({
  name: 'Book',
  fields: {
    title: { type: 'string' },
    createdAt: { type: 'datetime', default: 'now', writable: false },
    author: { toOne: 'Author', inversedBy: 'books' },
  },
  filters: [
    { type: 'search', properties: { title: 'ipartial', author: 'exact' } },
    { type: 'order', properties: ['title'] },
  ],
});

interface Seen {
  readonly sql: string;
  readonly method: string | undefined;
  readonly direct: boolean;
}

function listen(knex: Knex): Seen[] {
  const seen: Seen[] = [];
  knex.on('query', (query: { sql: string; method?: string; __knexUid?: string }) =>
    seen.push({ sql: query.sql, method: query.method, direct: query.__knexUid === 'statement-runner' }),
  );
  return seen;
}

/** The body with every `createdAt` (the moment each app wrote its copy) blanked; every other value is compared. */
const withoutCreation = (body: unknown): unknown =>
  JSON.parse(
    JSON.stringify(body, (key, value: unknown) => (key === 'createdAt' && typeof value === 'string' ? 'set' : value)),
  );

const READS = [
  '/api/books/1',
  '/api/books/999',
  '/api/books?page=1',
  '/api/books?page=2&itemsPerPage=1',
  '/api/books?title=left&order[title]=desc',
  '/api/books?author=/api/authors/2',
  '/api/authors/1/books',
  '/api/authors?page=5',
];

async function seed(app: Awaited<ReturnType<typeof buildTestApp>>): Promise<void> {
  for (const name of ['Ursula K. Le Guin', 'Iain M. Banks'])
    expect((await call(app, { method: 'POST', url: '/api/authors', payload: { name } })).status).toBe(201);
  for (const [title, author] of [
    ['The Left Hand of Darkness', 1],
    ['The Dispossessed', 1],
    ['Consider Phlebas', 2],
    ['Left of Eden', 2],
  ] as const) {
    expect(
      (await call(app, { method: 'POST', url: '/api/books', payload: { title, author: `/api/authors/${author}` } }))
        .status,
    ).toBe(201);
  }
}

describe.each(testDatabases(inject('postgresUrl'), inject('mariadbUrl')))(
  'the statement runner on $name',
  (database) => {
    it('runs the reads outside knex’s runner, and they answer what knex’s runner answers', async () => {
      const app = await buildTestApp({ database, resources: [Author, Book] });
      await seed(app);
      const seen = listen(app.resourceApi.database.knex);

      // The same data behind a knex instance handed in: knex runs every statement there.
      const schema = createTestSchemaName(database);
      // On MariaDB, a knex instance with the settings a handed-in one must have (docs/database.md): the one openDatabase
      // makes, handed in, so that the plugin treats it as a user's.
      const mariadb = database.name === 'mariadb' ? await openDatabase({ url: database.url, schema }) : undefined;
      const knex = mariadb
        ? mariadb.knex
        : database.name === 'postgres'
          ? knexFactory({ client: 'pg', connection: database.url, searchPath: [schema!], pool: { min: 0, max: 2 } })
          : knexFactory({ client: 'better-sqlite3', connection: { filename: ':memory:' }, useNullAsDefault: true });
      if (schema && !mariadb) await knex.raw('CREATE SCHEMA ??', [schema]);
      const reference = Fastify({ logger: false });
      await reference.register(resourceApi, { database: knex, resources: [Author, Book] });
      await reference.ready();
      await seed(reference);
      const referenceSeen = listen(knex);

      for (const url of READS) {
        const direct = await call(app, { method: 'GET', url });
        const viaKnex = await call(reference, { method: 'GET', url });
        expect(direct.status, url).toBe(viaKnex.status);
        expect(withoutCreation(direct.body), url).toEqual(withoutCreation(viaKnex.body));
      }
      expect(seen.filter((query) => query.method === 'select').length).toBeGreaterThanOrEqual(READS.length);
      expect(seen.filter((query) => !query.direct)).toEqual([]);
      expect(referenceSeen.filter((query) => query.direct)).toEqual([]);

      // A write: on SQLite the runner commits it itself; on PostgreSQL and MariaDB knex runs it.
      seen.length = 0;
      expect(
        (
          await call(app, {
            method: 'POST',
            url: '/api/books',
            payload: { title: 'Excession', author: '/api/authors/2' },
          })
        ).status,
      ).toBe(201);
      const insert = seen.find((query) => query.sql.startsWith('insert'));
      expect(insert?.direct).toBe(database.name === 'sqlite');
      const found = await call(app, { method: 'GET', url: '/api/books?title=excession' });
      expect(found.body['hydra:member'].map((book: { title: string }) => book.title)).toEqual(['Excession']);

      await reference.close();
      if (schema) await knex.raw(mariadb ? 'DROP DATABASE ??' : 'DROP SCHEMA ?? CASCADE', [schema]);
      await knex.destroy();
      await app.close();
    });

    it('answers bad input with a 400 before any read, and a missing item with a 404 that changes nothing', async () => {
      const app = await buildTestApp({ database, resources: [Author, Book] });
      await seed(app);
      const seen = listen(app.resourceApi.database.knex);
      const bad = await call(app, { method: 'GET', url: '/api/books?page=0' });
      expect(bad.status).toBe(400);
      expect(seen).toEqual([]);
      expect((await call(app, { method: 'GET', url: '/api/books/12345' })).status).toBe(404);
      expect((await call(app, { method: 'GET', url: '/api/books' })).body['hydra:totalItems']).toBe(4);
      await app.close();
    });
  },
);
