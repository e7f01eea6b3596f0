/**
 * Varnish in front of the app (Debian's Varnish with varnish-modules, the VCL the package ships): public reads are
 * kept by Varnish, indexed by their cache tags; every write purges them by tag (xkey, or BAN) before it is answered;
 * what carries credentials is never kept; and, with one instance or two behind it, with or without the in-process
 * cache besides, no read that started after a write's answer shows an older body. On SQLite and PostgreSQL.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, inject, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { createVarnishPurger, type HttpCacheOptions } from '@resource-api/core';
import { testDatabases, type TestDatabase } from '@resource-api/core/testing';
import { Author, Book } from '../fixtures.js';
import { listen } from '../mercure/listening-app.js';
import { REDIS_URL, redisAvailable } from '../redis.js';
import { runNeverStale } from './never-stale.js';
import { freePort, type RunningVarnish, startVarnish, varnishAvailable } from './varnish.js';

// Two instances on SQLite share a file (the test kit's in-memory database would be one per instance). Two instances
// tell each other of their purges and wait for each other's reads through a channel: PostgreSQL's LISTEN/NOTIFY, or
// Redis on SQLite and MariaDB (without one, a read under way on one instance at the other's write is not waited for,
// and Varnish may keep what it rendered). One instance with the memory store; two with it on PostgreSQL, two
// without it elsewhere.
const directory = mkdtempSync(join(tmpdir(), 'resource-api-varnish-app-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));
const databases = testDatabases(inject('postgresUrl'), inject('mariadbUrl')).map(
  (database): TestDatabase =>
    database.name === 'sqlite' ? { name: 'sqlite', url: `sqlite:${join(directory, 'shared.db')}` } : database,
);

const DEFAULTS = { sharedMaxAge: 3600, maxAge: 0 };
/** Whether Varnish answered from its cache: `X-Varnish` then names this request and the one that stored it. */
const fromVarnish = (response: Response) => /^\d+ \d+$/.test(response.headers.get('x-varnish') ?? '');

describe.skipIf(!varnishAvailable).each(databases)('Varnish in front, on $name', (database) => {
  const apps: FastifyInstance[] = [];
  let varnish: RunningVarnish | undefined;
  afterEach(async () => {
    await varnish?.stop();
    varnish = undefined;
    for (const app of apps.splice(0).reverse()) await app.close();
    if (database.name === 'sqlite') rmSync(join(directory, 'shared.db'), { force: true });
  });

  /**
   * `instances` apps behind one Varnish, purging it in `mode`, with the in-process cache when `memory`; each purge
   * `slow` milliseconds late when given.
   */
  const open = async (options: {
    instances: number;
    mode?: 'xkey' | 'ban';
    memory?: boolean;
    logged?: Record<string, unknown>[];
    slow?: number;
    /** The instances' channel through Redis (on SQLite and MariaDB, which have no LISTEN/NOTIFY). */
    redis?: boolean;
    /** Routes of the application's own. */
    setUp?: (app: FastifyInstance) => void;
  }) => {
    const port = await freePort();
    const varnishPurger = createVarnishPurger({ url: `http://127.0.0.1:${port}`, mode: options.mode ?? 'xkey' });
    const { slow } = options;
    const httpCache: HttpCacheOptions = {
      defaults: DEFAULTS,
      purgers: [
        slow === undefined
          ? varnishPurger
          : {
              name: 'a slow Varnish',
              purge: async (tags) => {
                await new Promise((resolve) => setTimeout(resolve, slow));
                await varnishPurger.purge(tags);
              },
            },
      ],
      ...(options.memory ? { store: 'memory' as const } : {}),
      ...(options.redis ? { redis: REDIS_URL, channel: `test-varnish-${randomBytes(6).toString('hex')}` } : {}),
    };
    const origins: string[] = [];
    let schema: string | undefined;
    for (let index = 0; index < options.instances; index++) {
      const opened = await listen({
        database,
        resources: [Author, Book],
        httpCache,
        ...(schema ? { sharedSchema: schema } : {}),
        ...(options.logged ? { logged: options.logged } : {}),
        ...(options.setUp ? { setUp: options.setUp } : {}),
      });
      schema ??= opened.schema;
      apps.push(opened.app);
      origins.push(opened.origin);
    }
    varnish = await startVarnish(origins, port);
    return { varnish, origins };
  };
  const send = (origin: string, path: string, init: RequestInit = {}) =>
    fetch(`${origin}${path}`, { ...init, headers: { accept: 'application/ld+json', ...init.headers } });
  const create = (origin: string, name: string) =>
    send(origin, '/api/authors', {
      method: 'POST',
      headers: { 'content-type': 'application/ld+json' },
      body: JSON.stringify({ name }),
    });
  const rename = (origin: string, name: string) =>
    send(origin, '/api/authors/1', {
      method: 'PATCH',
      headers: { 'content-type': 'application/merge-patch+json' },
      body: JSON.stringify({ name }),
    });

  for (const mode of ['xkey', 'ban'] as const)
    it(`keeps public reads and purges them by tag (${mode}) before a write is answered`, async () => {
      const { varnish } = await open({ instances: 1, mode });
      expect((await create(varnish.origin, 'Frank Herbert')).status).toBe(201);
      await create(varnish.origin, 'Ursula K. Le Guin');
      const first = await send(varnish.origin, '/api/authors/1');
      expect(fromVarnish(first)).toBe(false);
      expect(first.headers.get('cache-control')).toBe('public, s-maxage=3600, max-age=0');
      expect(first.headers.get('cache-tags')).toBe('/api/authors/1, /api/books');
      expect(first.headers.get('xkey')).toBeNull();
      const again = await send(varnish.origin, '/api/authors/1');
      expect(fromVarnish(again)).toBe(true);
      expect(await again.json()).toMatchObject({ name: 'Frank Herbert' });
      // Another item and the list, kept too.
      expect(fromVarnish(await send(varnish.origin, '/api/authors/2'))).toBe(false);
      await send(varnish.origin, '/api/authors');
      expect(fromVarnish(await send(varnish.origin, '/api/authors'))).toBe(true);

      expect((await rename(varnish.origin, 'F. Herbert')).status).toBe(200);
      // Right after the answer: what showed the author is gone; the other author, untouched, is still kept.
      const renamed = await send(varnish.origin, '/api/authors/1');
      expect(fromVarnish(renamed)).toBe(false);
      expect(await renamed.json()).toMatchObject({ name: 'F. Herbert' });
      const list = await send(varnish.origin, '/api/authors');
      expect(fromVarnish(list)).toBe(false);
      expect(((await list.json()) as { 'hydra:member': { name: string }[] })['hydra:member'][0]!.name).toBe(
        'F. Herbert',
      );
      expect(fromVarnish(await send(varnish.origin, '/api/authors/2'))).toBe(true);

      // A delete purges too.
      expect((await send(varnish.origin, '/api/authors/2', { method: 'DELETE' })).status).toBe(204);
      expect((await send(varnish.origin, '/api/authors/2')).status).toBe(404);
    });

  it('answers a write only once a purger of its own (any { purge(tags) }) has purged', async () => {
    const { varnish } = await open({ instances: 1, slow: 300 });
    await create(varnish.origin, 'Frank Herbert');
    await send(varnish.origin, '/api/authors/1');
    expect(fromVarnish(await send(varnish.origin, '/api/authors/1'))).toBe(true);
    const started = performance.now();
    expect((await rename(varnish.origin, 'F. Herbert')).status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
    const renamed = await send(varnish.origin, '/api/authors/1');
    expect(fromVarnish(renamed)).toBe(false);
    expect(await renamed.json()).toMatchObject({ name: 'F. Herbert' });
  });

  it('never keeps what carries credentials, and refuses purges from elsewhere than its purgers', async () => {
    const { varnish } = await open({ instances: 1 });
    await create(varnish.origin, 'Frank Herbert');
    const withCredentials = { headers: { authorization: 'Bearer not-a-token' } };
    await send(varnish.origin, '/api/authors/1', withCredentials);
    expect(fromVarnish(await send(varnish.origin, '/api/authors/1', withCredentials))).toBe(false);
    // A PURGE without tags is refused (the purger always names them).
    expect((await fetch(varnish.origin, { method: 'PURGE' })).status).toBe(400);
  });

  it('keeps no GraphQL answer (GET queries included), nor a response that says nothing to caches', async () => {
    let served = 0;
    const { varnish } = await open({
      instances: 1,
      setUp: (app) => app.get('/plain', async () => ({ served: ++served })),
    });
    await create(varnish.origin, 'Frank Herbert');
    const query = `/graphql?query=${encodeURIComponent('{ author(id: "/api/authors/1") { name } }')}`;
    const first = await send(varnish.origin, query);
    expect(first.status).toBe(200);
    expect(first.headers.get('cache-control')).toBe('private, no-store');
    expect(first.headers.get('vary')).toBe('Accept, Authorization');
    expect(await first.json()).toEqual({ data: { author: { name: 'Frank Herbert' } } });
    expect((await rename(varnish.origin, 'F. Herbert')).status).toBe(200);
    const second = await send(varnish.origin, query);
    expect(fromVarnish(second)).toBe(false);
    expect(await second.json()).toEqual({ data: { author: { name: 'F. Herbert' } } });
    // A route of the application's own, with no Cache-Control: Varnish would have kept it for two minutes.
    await send(varnish.origin, '/plain');
    const plain = await send(varnish.origin, '/plain');
    expect(fromVarnish(plain)).toBe(false);
    expect(await plain.json()).toEqual({ served: 2 });
  });

  it('answers a committed write even when Varnish cannot be purged, and logs it', async () => {
    const logged: Record<string, unknown>[] = [];
    const { varnish, origins } = await open({ instances: 1, logged });
    await create(origins[0]!, 'Frank Herbert');
    await varnish.stop();
    const response = await rename(origins[0]!, 'F. Herbert');
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ name: 'F. Herbert' });
    expect(logged.some((line) => String(line.msg).includes('a shared cache could not be purged'))).toBe(true);
  });

  const runs = [
    { instances: 1, memory: true, redis: false },
    { instances: 2, memory: database.name === 'postgres', redis: database.name !== 'postgres' },
  ];
  for (const run of runs)
    it.skipIf(run.redis && !redisAvailable)(
      `never shows a read that started after a write's answer an older body (${run.instances} instance(s)${run.memory ? ', in-process cache too' : ''}${run.redis ? ', through Redis' : ''})`,
      async () => {
        const { varnish, origins } = await open(run);
        const result = await runNeverStale({
          // Writes straight to each instance and through Varnish; reads through Varnish only.
          writeTo: [varnish.origin, ...origins],
          readFrom: [varnish.origin],
          writes: 40,
          readers: 4,
        });
        expect(result.stale).toEqual([]);
        expect(result.hits).toBeGreaterThan(0);
      },
    );
});
