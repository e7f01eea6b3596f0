/**
 * Rate limiting (@fastify/rate-limit, off by default): per IP, per user (the subject of a valid token), limits of
 * their own for operations, resources, the login route and GraphQL; a 429 hydra:Error / problem with `Retry-After`;
 * the count kept in Redis and shared by two instances of the app. Redis is expected at 127.0.0.1:6379
 * (`TEST_REDIS_URL`); without it the Redis tests are skipped with a loud notice, and fail under `CI=true`.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { DeclarationError, type RateLimitOptions, type ResourceApiOptions } from '@resource-api/core';
import { buildTestApp, testDatabases } from '@resource-api/core/testing';
import { Author, Book } from '../fixtures.js';
import { call } from '../helpers.js';
import { REDIS_URL, redisAvailable } from '../redis.js';
import { Note, Public, Report, securityOptions, User } from '../security/fixtures.js';

const [sqlite] = testDatabases(undefined);

const apps: FastifyInstance[] = [];
afterAll(async () => {
  await Promise.all(apps.map((app) => app.close()));
});

/** An app with the production plugin's rate limit (`rateLimit`) in front of the API (the rest of the options). */
async function open(
  options: Omit<ResourceApiOptions, 'database' | 'resources'> & {
    resources?: ResourceApiOptions['resources'];
    rateLimit: RateLimitOptions;
  },
): Promise<FastifyInstance> {
  const { rateLimit, ...rest } = options;
  const app = await buildTestApp({ database: sqlite!, resources: [Author, Book], ...rest, production: { rateLimit } });
  apps.push(app);
  return app;
}

const get = (app: FastifyInstance, url: string, headers: Record<string, string> = {}, remoteAddress = '203.0.113.7') =>
  call(app, { method: 'GET', url, headers, remoteAddress });

describe('rate limiting per IP address', () => {
  it('answers the request after the limit with a 429 hydra:Error carrying Retry-After and the rate-limit headers', async () => {
    const app = await open({ rateLimit: { max: 3, timeWindow: '1 minute' } });
    for (let i = 1; i <= 3; i++) {
      const response = await get(app, '/api/books');
      expect(response.status, `request ${i}`).toBe(200);
      expect(response.headers['x-ratelimit-limit']).toBe('3');
      expect(response.headers['x-ratelimit-remaining']).toBe(String(3 - i));
    }
    const limited = await get(app, '/api/books');
    expect(limited.status).toBe(429);
    expect(limited.headers['content-type']).toBe('application/ld+json; charset=utf-8');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(limited.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect(limited.headers['x-ratelimit-remaining']).toBe('0');
    expect(limited.headers.link).toContain('rel="http://www.w3.org/ns/hydra/core#apiDocumentation"');
    expect(limited.body).toEqual({
      '@context': '/api/contexts/Error',
      '@type': 'hydra:Error',
      'hydra:title': 'An error occurred',
      'hydra:description': expect.stringMatching(
        /^Rate limit exceeded: at most 3 requests in the window\. Retry in \d+ seconds?\.$/,
      ),
      title: 'An error occurred',
      detail: expect.stringMatching(/^Rate limit exceeded/),
      status: 429,
      type: '/errors/429',
    });

    const plain = await get(app, '/api/books/1', { accept: 'application/json' });
    expect(plain.status).toBe(429);
    expect(plain.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    expect(plain.body).toEqual({
      type: '/errors/429',
      title: 'An error occurred',
      detail: expect.stringMatching(/^Rate limit exceeded/),
      status: 429,
    });
  });

  it('counts each address on its own, and every route of the API together', async () => {
    const app = await open({ rateLimit: { max: 2 } });
    expect((await get(app, '/api/books')).status).toBe(200);
    expect((await get(app, '/api/authors')).status).toBe(200);
    expect((await get(app, '/api/docs.jsonld')).status).toBe(429);
    expect((await get(app, '/api/books', {}, '198.51.100.1')).status).toBe(200);
  });

  it('counts an IPv6 client, and an IPv4 client seen through a dual-stack socket (::ffff:…) with its IPv4 form', async () => {
    const app = await open({ rateLimit: { max: 2 } });
    // The same client twice in its mapped form, then once in its plain form: the third is over the limit.
    expect((await get(app, '/api/books', {}, '::ffff:198.51.100.9')).headers['x-ratelimit-remaining']).toBe('1');
    expect((await get(app, '/api/books', {}, '::ffff:198.51.100.9')).headers['x-ratelimit-remaining']).toBe('0');
    expect((await get(app, '/api/books', {}, '198.51.100.9')).status).toBe(429);
    // IPv6 addresses of one /64 network count together (@fastify/rate-limit's default subnet), another network apart.
    expect((await get(app, '/api/books', {}, '2001:db8:0:1::7')).headers['x-ratelimit-remaining']).toBe('1');
    expect((await get(app, '/api/books', {}, '2001:db8:0:1:ffff::8')).headers['x-ratelimit-remaining']).toBe('0');
    expect((await get(app, '/api/books', {}, '2001:db8:0:2::9')).headers['x-ratelimit-remaining']).toBe('1');
  });

  it('refuses a write over the limit without performing it', async () => {
    const app = await open({ rateLimit: { max: 1 } });
    const create = () =>
      call(app, {
        method: 'POST',
        url: '/api/authors',
        payload: { name: 'Frank Herbert' },
        remoteAddress: '203.0.113.9',
      });
    expect((await create()).status).toBe(201);
    expect((await create()).status).toBe(429);
    expect(await app.resourceApi.database.knex('author').count({ n: '*' })).toEqual([{ n: 1 }]);
  });

  it('never limits the health routes', async () => {
    const app = await open({ rateLimit: { max: 1 } });
    for (let i = 0; i < 3; i++) {
      expect((await get(app, '/health')).status).toBe(200);
      expect((await get(app, '/health/ready')).status).toBe(200);
    }
    expect((await get(app, '/api/books')).status).toBe(200);
  });

  it('limits the GraphQL endpoint with a 429 too', async () => {
    const app = await open({ rateLimit: { max: 1 } });
    const query = () =>
      call(app, {
        method: 'POST',
        url: '/graphql',
        payload: { query: '{ __typename }' },
        remoteAddress: '203.0.113.10',
      });
    expect((await query()).status).toBe(200);
    const limited = await query();
    expect(limited.status).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    // A GraphQL client reads the error where it reads every other: in `errors`.
    expect(limited.body).toEqual({
      data: null,
      errors: [
        {
          message: expect.stringMatching(
            /^Rate limit exceeded: at most 1 requests in the window\. Retry in \d+ seconds?\.$/,
          ),
        },
      ],
    });
  });
});

describe('rate limiting per user', () => {
  const secured = { resources: [User, Note, Report, Public], security: securityOptions() };

  async function tokenOf(app: FastifyInstance, email: string): Promise<string> {
    const password = 'password-123';
    expect(
      (await call(app, { method: 'POST', url: '/api/users', payload: { email, plainPassword: password } })).status,
    ).toBe(201);
    const login = await call(app, { method: 'POST', url: '/api/auth', payload: { email, password } });
    return login.body.token as string;
  }

  it('counts each user on their own, whatever address they call from, and anonymous callers by address', async () => {
    const app = await open({ ...secured, rateLimit: { max: 3, routes: { login: false, User: false } } });
    const alice = { authorization: `Bearer ${await tokenOf(app, 'alice@example.com')}` };
    const bob = { authorization: `Bearer ${await tokenOf(app, 'bob@example.com')}` };
    for (let i = 0; i < 3; i++) expect((await get(app, '/api/notes', alice, `192.0.2.${i}`)).status).toBe(200);
    expect((await get(app, '/api/notes', alice, '192.0.2.99')).status).toBe(429);
    // Bob, from Alice's address, has his own count; so does an anonymous caller there.
    expect((await get(app, '/api/notes', bob, '192.0.2.0')).status).toBe(200);
    expect((await get(app, '/api/pages', {}, '192.0.2.0')).status).toBe(200);
  });

  it('counts a forged or expired token against the address, so made-up subjects buy no extra requests', async () => {
    const app = await open({ ...secured, rateLimit: { max: 2 } });
    const forged = (sub: string) => {
      const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
      return {
        authorization: `Bearer ${part({ alg: 'HS256', typ: 'JWT' })}.${part({ sub, exp: 9999999999 })}.${randomBytes(32).toString('base64url')}`,
      };
    };
    expect((await get(app, '/api/pages', forged('1'), '192.0.2.50')).status).toBe(401);
    expect((await get(app, '/api/pages', forged('2'), '192.0.2.50')).status).toBe(401);
    expect((await get(app, '/api/pages', forged('3'), '192.0.2.50')).status).toBe(429);
    expect((await get(app, '/api/pages', {}, '192.0.2.50')).status).toBe(429);
  });

  it('counts by address only with perUser: false', async () => {
    const app = await open({
      ...secured,
      rateLimit: { max: 1, perUser: false, routes: { login: false, User: false } },
    });
    const alice = { authorization: `Bearer ${await tokenOf(app, 'carol@example.com')}` };
    expect((await get(app, '/api/notes', alice, '192.0.2.60')).status).toBe(200);
    expect((await get(app, '/api/pages', {}, '192.0.2.60')).status).toBe(429);
  });
});

describe('limits of their own', () => {
  it('gives an operation, by name, a count and a limit of its own', async () => {
    const app = await open({ rateLimit: { max: 5, routes: { api_authors_post: { max: 1 } } } });
    const create = () =>
      call(app, {
        method: 'POST',
        url: '/api/authors',
        payload: { name: 'N. K. Jemisin' },
        remoteAddress: '203.0.113.20',
      });
    expect((await create()).status).toBe(201);
    const limited = await create();
    expect(limited.status).toBe(429);
    expect(limited.headers['x-ratelimit-limit']).toBe('1');
    expect((await get(app, '/api/authors', {}, '203.0.113.20')).status).toBe(200);
  });

  it('exempts a resource with false, and lets an operation name win over its resource', async () => {
    const app = await open({
      rateLimit: { max: 1, routes: { Author: false, api_authors_get_collection: { max: 2 } } },
    });
    for (let i = 0; i < 3; i++) expect((await get(app, '/api/authors/1', {}, '203.0.113.30')).status).toBe(404);
    expect((await get(app, '/api/authors', {}, '203.0.113.30')).status).toBe(200);
    expect((await get(app, '/api/authors', {}, '203.0.113.30')).status).toBe(200);
    expect((await get(app, '/api/authors', {}, '203.0.113.30')).status).toBe(429);
  });

  it('gives the login route a limit of its own, against password guessing', async () => {
    const app = await open({
      resources: [User, Note, Report, Public],
      security: securityOptions(),
      rateLimit: { max: 100, routes: { login: { max: 2 } } },
    });
    const guess = () =>
      call(app, {
        method: 'POST',
        url: '/api/auth',
        payload: { email: 'alice@example.com', password: 'guess' },
        remoteAddress: '203.0.113.40',
      });
    expect((await guess()).status).toBe(401);
    expect((await guess()).status).toBe(401);
    expect((await guess()).status).toBe(429);
    expect((await get(app, '/api/pages', {}, '203.0.113.40')).status).toBe(200);
  });

  it('refuses to start with a name that is no operation, resource, login or graphql, and suggests the closest', async () => {
    await expect(
      buildTestApp({
        database: sqlite!,
        resources: [Author, Book],
        production: { rateLimit: { routes: { Autor: false } } },
      }),
    ).rejects.toThrow(
      new DeclarationError(
        'rateLimit.routes: "Autor" is no operation, resource, "login" or "graphql" of this API. Did you mean "Author"?',
      ),
    );
    await expect(
      buildTestApp({
        database: sqlite!,
        resources: [Author, Book],
        production: { rateLimit: { routes: { api_books_delete: { max: 1 } } } },
      }),
    ).rejects.toThrow(/Did you mean "api_books_id_delete"\?/);
  });
});

describe.skipIf(!redisAvailable)('rate limiting in Redis', () => {
  it('shares one count between two instances of the app', async () => {
    const nameSpace = `test-rate-limit-${randomBytes(6).toString('hex')}:`;
    const first = await open({ rateLimit: { max: 3, redis: REDIS_URL, nameSpace } });
    const second = await open({ rateLimit: { max: 3, redis: REDIS_URL, nameSpace } });
    expect((await get(first, '/api/books')).status).toBe(200);
    expect((await get(second, '/api/books')).status).toBe(200);
    expect((await get(first, '/api/books')).status).toBe(200);
    const limited = await get(second, '/api/books');
    expect(limited.status).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect((await get(first, '/api/books')).status).toBe(429);
    // The count lives in Redis, under the name space, keyed by the address.
    const redis = new Redis(REDIS_URL);
    try {
      expect(await redis.get(`${nameSpace}ip:203.0.113.7`)).toBe('5');
      await redis.del(`${nameSpace}ip:203.0.113.7`);
    } finally {
      redis.disconnect();
    }
  });

  it('takes an ioredis client of your own, and leaves it open when the app closes', async () => {
    const redis = new Redis(REDIS_URL);
    const nameSpace = `test-rate-limit-${randomBytes(6).toString('hex')}:`;
    try {
      const app = await buildTestApp({
        database: sqlite!,
        resources: [Author, Book],
        production: { rateLimit: { max: 1, redis, nameSpace } },
      });
      try {
        expect((await get(app, '/api/books')).status).toBe(200);
        expect((await get(app, '/api/books')).status).toBe(429);
      } finally {
        await app.close();
      }
      expect(await redis.get(`${nameSpace}ip:203.0.113.7`)).toBe('2');
      await redis.del(`${nameSpace}ip:203.0.113.7`);
    } finally {
      redis.disconnect();
    }
  });
});

describe('a Redis store that does not answer', () => {
  it('lets requests through rather than failing them (skipOnError, the default)', async () => {
    const app = await open({ rateLimit: { max: 1, redis: 'redis://127.0.0.1:9' } });
    expect((await get(app, '/api/books')).status).toBe(200);
    expect((await get(app, '/api/books')).status).toBe(200);
  });
});
