/**
 * Hits of the in-process cache answered before the app (`answerHits: 'beforeApp'`, the default), over real
 * connections: the server answers them before Fastify routes them, so no hook of the app runs (no rate-limit count,
 * no request id), and they carry the stored response's headers. With `answerHits: 'afterHooks'` each hit goes through
 * the hooks as before. Every database: a write's purge reaches these hits as it reaches the others.
 */
import { afterEach, describe, expect, inject, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { testDatabases } from '@resource-api/core/testing';
import type { ProductionOptions } from '@resource-api/core';
import { Author, Book } from '../fixtures.js';
import { listen } from '../mercure/listening-app.js';
import { runNeverStale } from './never-stale.js';

const JSON_LD = { accept: 'application/ld+json' };

describe.each(testDatabases(inject('postgresUrl'), inject('mariadbUrl')))(
  'hits of the in-process cache over real connections on $name',
  (database) => {
    const opened: FastifyInstance[] = [];
    afterEach(async () => {
      for (const app of opened.splice(0)) await app.close();
    });
    /** An app with the production plugin (a rate limit of 3), counting the requests its own `onRequest` hook sees. */
    const open = async (
      answerHits: 'beforeApp' | 'afterHooks' | undefined,
      production?: ProductionOptions,
      setUp?: (app: FastifyInstance) => void,
    ) => {
      const seen = { count: 0 };
      const { app, origin } = await listen({
        database,
        resources: [Author, Book],
        httpCache: {
          defaults: { sharedMaxAge: 3600, maxAge: 0, vary: ['Accept-Language'] },
          store: 'memory',
          ...(answerHits ? { answerHits } : {}),
        },
        production: production ?? { rateLimit: { max: 3, timeWindow: '1 minute' } },
        setUp: (app) => {
          app.addHook('onRequest', (_request, _reply, done) => {
            seen.count++;
            done();
          });
          setUp?.(app);
        },
      });
      opened.push(app);
      // Written to the database directly: a POST would count against the limit too.
      await app.resourceApi.database.knex('author').insert({ name: 'Frank Herbert' });
      return { app, origin, seen };
    };
    const get = (origin: string, path: string, headers: Record<string, string> = {}) =>
      fetch(`${origin}${path}`, { headers: { ...JSON_LD, ...headers } }).then(async (response) => ({
        status: response.status,
        headers: response.headers,
        body: await response.text(),
      }));

    it('answers hits before any hook of the app, with the stored headers and none of the request’s own', async () => {
      const { origin, seen } = await open(undefined);
      const miss = await get(origin, '/api/authors/1');
      expect(miss.status).toBe(200);
      expect(miss.headers.get('x-cache')).toBe('MISS');
      expect(miss.headers.get('x-request-id')).toBeTruthy();
      expect(miss.headers.get('x-ratelimit-remaining')).toBe('2');
      const counted = seen.count;

      // More hits than the rate limit allows requests: none is counted, none refused.
      const hits = [];
      for (let i = 0; i < 5; i++) hits.push(await get(origin, '/api/authors/1'));
      expect(hits.map((hit) => hit.status)).toEqual([200, 200, 200, 200, 200]);
      expect(hits.map((hit) => hit.headers.get('x-cache'))).toEqual(['HIT', 'HIT', 'HIT', 'HIT', 'HIT']);
      expect(seen.count).toBe(counted);
      const hit = hits[0]!;
      expect(hit.body).toBe(miss.body);
      for (const name of [
        'etag',
        'cache-control',
        'cache-tags',
        'vary',
        'content-type',
        'link',
        'x-content-type-options',
        'content-security-policy',
        'strict-transport-security',
      ])
        expect([name, hit.headers.get(name)]).toEqual([name, miss.headers.get(name)]);
      expect(hit.headers.get('link')).toContain('rel="http://www.w3.org/ns/hydra/core#apiDocumentation"');
      expect(hit.headers.get('content-length')).toBe(String(Buffer.byteLength(miss.body)));
      expect(hit.headers.get('age')).toMatch(/^\d+$/);
      expect(hit.headers.get('x-request-id')).toBeNull();
      expect(hit.headers.get('x-ratelimit-remaining')).toBeNull();

      // If-None-Match naming the ETag: 304, without the headers of a body.
      const notModified = await get(origin, '/api/authors/1', { 'if-none-match': miss.headers.get('etag')! });
      expect(notModified.status).toBe(304);
      expect(notModified.body).toBe('');
      expect(notModified.headers.get('x-cache')).toBe('HIT');
      expect(notModified.headers.get('etag')).toBe(miss.headers.get('etag'));
      expect(notModified.headers.get('cache-tags')).toBeNull();
      expect(notModified.headers.get('content-type')).toBeNull();
      expect(seen.count).toBe(counted);

      // Credentials: never answered from the cache; the app sees the request (and counts it).
      const withCredentials = await get(origin, '/api/authors/1', { authorization: 'Bearer x' });
      expect(withCredentials.headers.get('x-cache')).not.toBe('HIT');
      expect(seen.count).toBe(counted + 1);
    });

    it('keeps one response per forwarded host and per value of a header it varies on', async () => {
      const { origin } = await open(undefined, {});
      const cacheOf = async (headers: Record<string, string>) =>
        (await get(origin, '/api/authors/1', headers)).headers.get('x-cache');
      expect(await cacheOf({ 'accept-language': 'fr' })).toBe('MISS');
      expect(await cacheOf({ 'accept-language': 'fr' })).toBe('HIT');
      expect(await cacheOf({ 'accept-language': 'de' })).toBe('MISS');
      expect(await cacheOf({ 'accept-language': 'fr', 'x-forwarded-host': 'api.example.com' })).toBe('MISS');
      expect(await cacheOf({ 'accept-language': 'fr', 'x-forwarded-host': 'api.example.com' })).toBe('HIT');
      expect(await cacheOf({ 'accept-language': 'fr', 'x-forwarded-proto': 'https' })).toBe('MISS');
      expect(await cacheOf({ accept: 'application/json', 'accept-language': 'fr' })).toBe('MISS');
    });

    it('answers after a write with the written state, and never an older one to a read that started after it', async () => {
      const { origin } = await open(undefined, {});
      expect((await get(origin, '/api/authors/1')).headers.get('x-cache')).toBe('MISS');
      expect((await get(origin, '/api/authors/1')).headers.get('x-cache')).toBe('HIT');
      const written = await fetch(`${origin}/api/authors/1`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/merge-patch+json' },
        body: JSON.stringify({ name: 'Ursula K. Le Guin' }),
      });
      expect(written.status).toBe(200);
      const after = await get(origin, '/api/authors/1');
      expect(after.headers.get('x-cache')).toBe('MISS');
      expect(JSON.parse(after.body).name).toBe('Ursula K. Le Guin');

      const run = await runNeverStale({ writeTo: [origin], readFrom: [origin], writes: 25, readers: 6 });
      expect(run.stale).toEqual([]);
      expect(run.hits).toBeGreaterThan(0);
    });

    it('answers each allowed origin with its own CORS headers', async () => {
      const { origin } = await open(undefined, { cors: { origin: ['https://a.example', 'https://b.example'] } });
      const read = (from: string) => get(origin, '/api/authors/1', { origin: from });
      const first = await read('https://a.example');
      expect(first.headers.get('x-cache')).toBe('MISS');
      expect(first.headers.get('vary')).toMatch(/Origin/);
      const again = await read('https://a.example');
      expect(again.headers.get('x-cache')).toBe('HIT');
      expect(again.headers.get('access-control-allow-origin')).toBe('https://a.example');
      const other = await read('https://b.example');
      expect(other.headers.get('x-cache')).toBe('MISS');
      expect(other.headers.get('access-control-allow-origin')).toBe('https://b.example');
      const none = await get(origin, '/api/authors/1');
      expect(none.headers.get('x-cache')).toBe('MISS');
      expect(none.headers.get('access-control-allow-origin')).toBeNull();
    });

    it('keeps no response that sets a cookie', async () => {
      const { origin } = await open(undefined, {}, (app) =>
        app.addHook('onSend', (request, reply, payload, done) => {
          if (request.url === '/api/authors/1') reply.header('set-cookie', 'session=abc; HttpOnly');
          done(null, payload);
        }),
      );
      for (let i = 0; i < 3; i++) {
        const response = await get(origin, '/api/authors/1');
        expect(response.status).toBe(200);
        expect(response.headers.get('x-cache')).toBeNull();
      }
    });

    it("with answerHits: 'afterHooks', runs the app's hooks for every hit, so the rate limit counts it", async () => {
      const { origin, seen } = await open('afterHooks');
      const responses = [];
      for (let i = 0; i < 4; i++) responses.push(await get(origin, '/api/authors/1'));
      expect(responses.map((r) => r.status)).toEqual([200, 200, 200, 429]);
      expect(responses.map((r) => r.headers.get('x-cache'))).toEqual(['MISS', 'HIT', 'HIT', null]);
      expect(responses[1]!.headers.get('x-request-id')).toBeTruthy();
      expect(responses[2]!.headers.get('x-ratelimit-remaining')).toBe('0');
      expect(seen.count).toBe(4);
    });
  },
);

describe('the answerHits option', () => {
  it('refuses a value it does not know, with the ones it does', async () => {
    const { buildTestApp, testDatabases: databases } = await import('@resource-api/core/testing');
    const [sqlite] = databases(undefined);
    await expect(
      buildTestApp({
        resources: [Author, Book],
        database: sqlite!,
        httpCache: { store: 'memory', answerHits: 'first' as never },
      }),
    ).rejects.toThrow('"httpCache.answerHits" must be "beforeApp" or "afterHooks", not "first".');
  });
});
