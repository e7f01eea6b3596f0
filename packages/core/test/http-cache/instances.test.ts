/**
 * Several instances of one app, each with its in-process cache, on one database: a write on one purges the caches of
 * all before it is answered — through PostgreSQL's `LISTEN/NOTIFY` by default, through Redis with `httpCache.redis`
 * (on one SQLite file as on PostgreSQL). An instance whose channel is down empties its cache and keeps nothing until
 * it is back. The two instances are two apps of the test's process, each with its own pool and channel connection.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, inject, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { testDatabases, type TestDatabase } from '@resource-api/core/testing';
import { Author, Book } from '../fixtures.js';
import { listen } from '../mercure/listening-app.js';
import { REDIS_URL, redisAvailable } from '../redis.js';
import { runNeverStale } from './never-stale.js';

// Two instances on one SQLite file: the in-memory database of the test kit would be one database per instance.
const directory = mkdtempSync(join(tmpdir(), 'resource-api-cache-instances-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));
const all = testDatabases(inject('postgresUrl'), inject('mariadbUrl'));
const postgres = all.find((database) => database.name === 'postgres');
const mariadb = all.find((database) => database.name === 'mariadb');
const sqliteFile = (): TestDatabase => ({
  name: 'sqlite',
  url: `sqlite:${join(directory, `${randomBytes(6).toString('hex')}.db`)}`,
});

const sleep = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));

/** The ways instances reach each other: PostgreSQL alone, and Redis on any database (MariaDB has no LISTEN). */
const setups = [
  ...(postgres ? [{ name: 'PostgreSQL LISTEN/NOTIFY', database: () => postgres, redis: false }] : []),
  ...(redisAvailable
    ? [
        { name: 'Redis, on one SQLite file', database: sqliteFile, redis: true },
        ...(postgres ? [{ name: 'Redis, on PostgreSQL', database: () => postgres, redis: true }] : []),
        ...(mariadb ? [{ name: 'Redis, on MariaDB', database: () => mariadb, redis: true }] : []),
      ]
    : []),
];

describe.each(setups)('in-process caches of two instances through $name', (setup) => {
  const opened: FastifyInstance[] = [];
  afterEach(async () => {
    // The second first: the first drops the PostgreSQL schema they share.
    for (const app of opened.splice(0).reverse()) await app.close();
  });
  const open = async () => {
    const database = setup.database();
    const httpCache = {
      defaults: { sharedMaxAge: 3600, maxAge: 0 },
      store: 'memory' as const,
      ...(setup.redis ? { redis: REDIS_URL, channel: `test-cache-${randomBytes(6).toString('hex')}` } : {}),
    };
    const first = await listen({ database, resources: [Author, Book], httpCache });
    opened.push(first.app);
    const second = await listen({ database, resources: [Author, Book], httpCache, sharedSchema: first.schema });
    opened.push(second.app);
    // Each has heard the other's hello (sent when it started) before the test writes.
    await sleep(100);
    return { first, second };
  };
  const read = (origin: string, path: string) =>
    fetch(`${origin}${path}`, { headers: { accept: 'application/ld+json' } }).then(async (response) => ({
      cache: response.headers.get('x-cache'),
      body: (await response.json()) as Record<string, unknown>,
    }));
  const patch = (origin: string, path: string, name: string) =>
    fetch(`${origin}${path}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/merge-patch+json' },
      body: JSON.stringify({ name }),
    });

  it('purges the other instance’s cache before the write is answered', async () => {
    const { first, second } = await open();
    const created = await fetch(`${first.origin}/api/authors`, {
      method: 'POST',
      headers: { 'content-type': 'application/ld+json' },
      body: JSON.stringify({ name: 'Frank Herbert' }),
    });
    expect(created.status).toBe(201);
    expect((await read(second.origin, '/api/authors/1')).cache).toBe('MISS');
    expect(await read(second.origin, '/api/authors/1')).toMatchObject({
      cache: 'HIT',
      body: { name: 'Frank Herbert' },
    });
    expect((await read(second.origin, '/api/authors')).cache).toBe('MISS');

    expect((await patch(first.origin, '/api/authors/1', 'F. Herbert')).status).toBe(200);
    // Right after the answer, with no wait: the second instance's responses showing the author are gone.
    expect(await read(second.origin, '/api/authors/1')).toMatchObject({ cache: 'MISS', body: { name: 'F. Herbert' } });
    const list = await read(second.origin, '/api/authors');
    expect(list.cache).toBe('MISS');
    expect(list.body['hydra:member']).toMatchObject([{ name: 'F. Herbert' }]);

    // And the other way round.
    expect((await read(first.origin, '/api/authors/1')).cache).toBe('MISS');
    expect((await read(first.origin, '/api/authors/1')).cache).toBe('HIT');
    expect((await patch(second.origin, '/api/authors/1', 'Herbert')).status).toBe(200);
    expect(await read(first.origin, '/api/authors/1')).toMatchObject({ cache: 'MISS', body: { name: 'Herbert' } });
  });

  it('never answers a read on either instance that started after a write was answered with an older body', async () => {
    const { first, second } = await open();
    const run = await runNeverStale({
      writeTo: [first.origin, second.origin],
      readFrom: [first.origin, second.origin],
      writes: 40,
      readers: 4,
    });
    expect(run.stale).toEqual([]);
    // The caches did answer meanwhile: the run tested them.
    expect(run.hits).toBeGreaterThan(0);
    expect(run.reads).toBeGreaterThan(run.hits);
  });

  it('does not wait for an instance that said goodbye', async () => {
    const { first, second } = await open();
    await fetch(`${first.origin}/api/authors`, {
      method: 'POST',
      headers: { 'content-type': 'application/ld+json' },
      body: JSON.stringify({ name: 'Frank Herbert' }),
    });
    await second.app.close();
    opened.pop();
    const started = performance.now();
    expect((await patch(first.origin, '/api/authors/1', 'F. Herbert')).status).toBe(200);
    // Well under the purge timeout (2 s) it would have waited for an instance still known.
    expect(performance.now() - started).toBeLessThan(1500);
  });
});

describe.skipIf(!postgres)('an instance whose purge channel is down', () => {
  it('empties its in-process cache and keeps nothing until it listens again', async () => {
    const schema = `test_${randomBytes(6).toString('hex')}`;
    const first = await listen({
      database: postgres!,
      resources: [Author, Book],
      httpCache: { defaults: { sharedMaxAge: 3600 }, store: 'memory', channel: `cache_${schema}` },
    });
    try {
      await fetch(`${first.origin}/api/authors`, {
        method: 'POST',
        headers: { 'content-type': 'application/ld+json' },
        body: JSON.stringify({ name: 'Frank Herbert' }),
      });
      const cacheOf = async () => (await fetch(`${first.origin}/api/authors/1`)).headers.get('x-cache');
      expect(await cacheOf()).toBe('MISS');
      expect(await cacheOf()).toBe('HIT');
      // The listening connection is cut, as a network failure or a restart of PostgreSQL would.
      const { knex } = first.app.resourceApi.database;
      const cut = await knex.raw(
        "select pg_terminate_backend(pid) from pg_stat_activity where application_name like '% cache' and pid <> pg_backend_pid()",
      );
      expect(cut.rows.length).toBeGreaterThan(0);
      await sleep(200);
      // Down: what was kept is gone, and nothing is kept meanwhile: no read is a hit.
      expect(await cacheOf()).toBe('MISS');
      expect(await cacheOf()).toBe('MISS');
      // Listening again a second later: cached again.
      await sleep(1500);
      expect(await cacheOf()).toBe('MISS');
      expect(await cacheOf()).toBe('HIT');
    } finally {
      await first.app.close();
    }
  });
});
