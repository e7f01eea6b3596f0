/**
 * A database that stops answering: requests get a 503 problem with Retry-After at once (not a 500, not a wait for
 * knex's minute-long acquire timeout), readiness says 503, liveness 200, nothing crashes, and once the database is back
 * the pool replaces its broken connections by itself. PostgreSQL is cut off by a TCP proxy the test closes (the live
 * connections are reset, new ones refused), so the shared server is never stopped; SQLite by another connection
 * holding the file's exclusive lock. `examples/bookshop/soak/` restarts a real PostgreSQL under load (docs/reliability.md).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { proxyTo } from './pg-proxy.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import Fastify, { type FastifyInstance } from 'fastify';
import knexFactory from 'knex';
import { describe, expect, inject, it } from 'vitest';
import { production, resourceApi } from '@resource-api/core';
import { buildTestApp, testDatabases, dropTestSchema } from '@resource-api/core/testing';
import { toApiError } from '../../src/response/render-error.js';
import { openDatabase } from '../../src/state/database.js';
import { isDatabaseUnavailable } from '../../src/state/dialects/unavailable.js';
import { Author, Book } from '../fixtures.js';
import { call } from '../helpers.js';

const postgres = testDatabases(inject('postgresUrl'), inject('mariadbUrl')).filter(
  (database) => database.name === 'postgres',
);

const DETAIL = 'The database is unavailable. Retry in 5 seconds.';
const PROBLEM = { type: '/errors/503', title: 'An error occurred', detail: DETAIL, status: 503 };
const HYDRA_ERROR = {
  '@context': '/api/contexts/Error',
  '@type': 'hydra:Error',
  'hydra:title': 'An error occurred',
  'hydra:description': DETAIL,
  ...PROBLEM,
};
const NOT_READY = {
  type: '/errors/503',
  title: 'An error occurred',
  detail: 'The database does not answer.',
  status: 503,
};

/**
 * Every kind of request the outage must answer with the same 503: reads, writes, JSON-LD and plain JSON; readiness
 * answers `readiness`, liveness 200.
 */
async function expectUnavailable(app: FastifyInstance, authorIri: string, readiness: 200 | 503): Promise<void> {
  const requests = [
    { method: 'GET', url: '/api/books' },
    { method: 'GET', url: authorIri },
    { method: 'POST', url: '/api/books', payload: { title: 'Written during the outage', author: authorIri } },
    {
      method: 'PATCH',
      url: authorIri,
      payload: { name: 'Renamed during the outage' },
      headers: { 'content-type': 'application/merge-patch+json' },
    },
  ] as const;
  for (const request of requests) {
    const jsonld = await call(app, request);
    expect(jsonld.status, `${request.method} ${request.url}`).toBe(503);
    expect(jsonld.headers['retry-after']).toBe('5');
    expect(jsonld.headers['content-type']).toBe('application/ld+json; charset=utf-8');
    expect(jsonld.body).toEqual(HYDRA_ERROR);
  }
  const plain = await call(app, { method: 'GET', url: '/api/authors', headers: { accept: 'application/json' } });
  expect(plain.status).toBe(503);
  expect(plain.headers['retry-after']).toBe('5');
  expect(plain.headers['content-type']).toBe('application/problem+json; charset=utf-8');
  expect(plain.body).toEqual(PROBLEM);

  const ready = await call(app, { method: 'GET', url: '/health/ready', headers: { accept: 'application/json' } });
  expect(ready.status).toBe(readiness);
  if (readiness === 503) expect(ready.body).toEqual(NOT_READY);
  expect((await call(app, { method: 'GET', url: '/health' })).status).toBe(200);
}

/** After the outage: reads and writes work again, the data written before is intact, the refused writes left nothing. */
async function expectRecovered(app: FastifyInstance, authorIri: string): Promise<void> {
  expect((await call(app, { method: 'GET', url: '/health/ready' })).status).toBe(200);
  const books = await call(app, { method: 'GET', url: '/api/books' });
  expect(books.status).toBe(200);
  expect(books.body['hydra:member'].map((book: { title: string }) => book.title)).toEqual([
    'Written before the outage',
  ]);
  expect((await call(app, { method: 'GET', url: authorIri })).body).toMatchObject({
    '@id': authorIri,
    name: 'Ursula K. Le Guin',
  });
  const created = await call(app, {
    method: 'POST',
    url: '/api/books',
    payload: { title: 'Written after the outage', author: authorIri },
  });
  expect(created.status).toBe(201);
  expect((await call(app, { method: 'GET', url: '/api/books' })).body['hydra:totalItems']).toBe(2);
}

/** Writes the data the outage must not lose; returns the author's IRI. */
async function seed(app: FastifyInstance): Promise<string> {
  const author = await call(app, { method: 'POST', url: '/api/authors', payload: { name: 'Ursula K. Le Guin' } });
  expect(author.status).toBe(201);
  const book = await call(app, {
    method: 'POST',
    url: '/api/books',
    payload: { title: 'Written before the outage', author: author.body['@id'] },
  });
  expect(book.status).toBe(201);
  return author.body['@id'] as string;
}

describe.each(postgres)('on $name when the server cannot be reached', (database) => {
  it('answers every request with a 503 problem and Retry-After, readiness with 503, and serves again once it is back', async () => {
    const proxy = await proxyTo(new URL(database.url));
    const app = await buildTestApp({
      database: { ...database, url: proxy.url },
      resources: [Author, Book],
      production: {},
    });
    try {
      const authorIri = await seed(app);
      await proxy.cut();
      // Twice: the first round meets the pooled connections the cut broke, the second finds none to open.
      await expectUnavailable(app, authorIri, 503);
      await expectUnavailable(app, authorIri, 503);
      await proxy.restore();
      await expectRecovered(app, authorIri);
    } finally {
      await app.close();
      await proxy.close();
    }
  });

  it("logs knex's connection warnings through the app's logger: one JSON line each at warn, without a stack", async () => {
    const proxy = await proxyTo(new URL(database.url));
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(...chunk.toString().split('\n').filter(Boolean));
        done();
      },
    });
    const app = Fastify({ logger: { level: 'warn', stream } });
    const schema = `test_${randomBytes(6).toString('hex')}`;
    await app.register(resourceApi, { resources: [Author, Book], database: proxy.url, databaseSchema: schema });
    await app.ready();
    try {
      await proxy.cut();
      // Two at once: the second needs a connection of its own, which the pool opens, and fails to.
      const answers = await Promise.all([
        call(app, { method: 'GET', url: '/api/books' }),
        call(app, { method: 'GET', url: '/api/books/1' }),
      ]);
      expect(answers.map((answer) => answer.status)).toEqual([503, 503]);
      const logged = lines.map((line) => JSON.parse(line) as { level: number; msg: string });
      const knexLines = logged.filter((line) => /^(Acquire connection error|Connection Error)/.test(line.msg));
      expect(knexLines.length).toBeGreaterThan(0);
      for (const line of knexLines) {
        expect(line.level).toBe(40);
        expect(line.msg).not.toContain('\n');
      }
    } finally {
      await proxy.restore();
      await dropTestSchema(app.resourceApi.database.knex, schema);
      await app.close();
      await proxy.close();
    }
  });

  it('refuses to start, with the connection error, when the database refuses connections', async () => {
    const url = new URL(database.url);
    url.host = '127.0.0.1:1';
    await expect(
      buildTestApp({ database: { ...database, url: url.href }, resources: [Author, Book] }),
    ).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });
});

describe('on sqlite when another process holds the file locked', () => {
  it('answers every request with a 503 problem and Retry-After, readiness with 503, and serves again once the lock is released', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'unavailable-'));
    const filename = join(directory, 'data.db');
    // busy_timeout 0: a locked file is reported at once (the default app waits 5 s for the lock first).
    const knex = knexFactory({
      client: 'better-sqlite3',
      connection: { filename },
      useNullAsDefault: true,
      pool: {
        min: 1,
        max: 1,
        afterCreate(
          connection: { pragma(source: string): unknown },
          done: (error: Error | null, connection: unknown) => void,
        ) {
          connection.pragma('busy_timeout = 0');
          done(null, connection);
        },
      },
    });
    const app = Fastify();
    await app.register(production, {});
    await app.register(resourceApi, { resources: [Author, Book], database: knex });
    await app.ready();
    // The other process: its own pool on the same file, whose one connection takes the exclusive lock.
    const other = knexFactory({
      client: 'better-sqlite3',
      connection: { filename },
      useNullAsDefault: true,
      pool: { min: 1, max: 1 },
    });
    const locker = (await other.client.acquireConnection()) as { exec(sql: string): void };
    try {
      const authorIri = await seed(app);
      locker.exec('BEGIN EXCLUSIVE');
      // Readiness runs `select 1`, which reads no table: the lock does not stop it, so it stays 200.
      await expectUnavailable(app, authorIri, 200);
      locker.exec('ROLLBACK');
      await expectRecovered(app, authorIri);
    } finally {
      await other.client.releaseConnection(locker);
      await other.destroy();
      await app.close();
      await knex.destroy();
      rmSync(directory, { recursive: true, force: true });
    }
  });
});

/** Real errors of the drivers and the pool, each produced here, and how they are answered. */
describe('which errors mean the database is unavailable', () => {
  it.each(postgres)(
    'on $name: a statement whose connection the server terminates (57P01), and the pool opens a new one after',
    async (database) => {
      const { knex, close } = await openDatabase({ url: database.url });
      try {
        const pid = Number((await knex.raw('select pg_backend_pid() as pid')).rows[0].pid);
        const sleeping = knex.raw('select pg_sleep(30)').catch((error: unknown) => error);
        // Terminate it from another connection once it runs; as an administrator (or a restart) would.
        const observer = await openDatabase({ url: database.url });
        try {
          let terminated = false;
          while (!terminated) {
            const rows = (
              await observer.knex.raw(
                "select pg_terminate_backend(pid) as done from pg_stat_activity where query = 'select pg_sleep(30)' and state = 'active'",
              )
            ).rows;
            terminated = rows.some((row: { done: boolean }) => row.done);
          }
        } finally {
          await observer.close();
        }
        const error = await sleeping;
        expect(error).toMatchObject({ code: '57P01' });
        expect(isDatabaseUnavailable(error)).toBe(true);
        expect(toApiError(error).error).toMatchObject({
          status: 503,
          code: 'API_ERR_STATE_UNAVAILABLE',
          headers: { 'retry-after': '5' },
        });
        // The broken connection is discarded and the next statements run on a new one. Until pg has seen the server close
        // the socket (a moment after the error) the pool may hand the dying connection out once more: that statement
        // fails as unavailable too, never otherwise.
        let next: number | undefined;
        const failures: unknown[] = [];
        while (next === undefined && failures.length < 3) {
          try {
            next = Number((await knex.raw('select pg_backend_pid() as pid')).rows[0].pid);
          } catch (failure) {
            failures.push(failure);
          }
        }
        expect(failures.filter((failure) => !isDatabaseUnavailable(failure))).toEqual([]);
        expect(next).toBeDefined();
        expect(next).not.toBe(pid);
      } finally {
        await close();
      }
    },
  );

  it("on sqlite: knex's pool timeout, when no connection frees up in time", async () => {
    const knex = knexFactory({
      client: 'better-sqlite3',
      connection: { filename: ':memory:' },
      useNullAsDefault: true,
      acquireConnectionTimeout: 50,
      pool: { min: 1, max: 1 },
    });
    const held = await knex.transaction();
    try {
      const error = await knex.raw('select 1').catch((caught: unknown) => caught);
      expect(error).toMatchObject({ name: 'KnexTimeoutError' });
      expect(isDatabaseUnavailable(error)).toBe(true);
      expect(toApiError(error).error.status).toBe(503);
    } finally {
      await held.rollback();
      await knex.destroy();
    }
  });

  it('not a constraint violation, a syntax error or a programming error: those stay what they were', async () => {
    const { knex, close } = await openDatabase({ url: 'sqlite::memory:' });
    try {
      await knex.raw('create table t (id integer primary key)');
      await knex.raw('insert into t values (1)');
      const errors = [
        await knex.raw('insert into t values (1)').catch((error: unknown) => error),
        await knex.raw('selec 1').catch((error: unknown) => error),
        new TypeError('x is undefined'),
      ];
      for (const error of errors) {
        expect(isDatabaseUnavailable(error), String(error)).toBe(false);
        expect(toApiError(error).error.status).toBe(500);
      }
    } finally {
      await close();
    }
  });
});
