/**
 * What the rate limit counts on the two routes that count differently (issue 34). The GraphQL endpoint counts each
 * root field of a document (50 root fields count 50, in the same count as the client's REST requests, or in the
 * endpoint's own with `routes.graphql`), and a document over the limit runs nothing. The login route counts per client
 * address and per target account (letter case ignored), never per bearer token: rotating the tokens of throw-away
 * accounts buys no extra guesses, spreading guesses over addresses stops at the account's limit. On both databases;
 * the shared Redis store when it answers.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, inject, it } from 'vitest';
import type { RateLimitOptions, ResourceApiOptions } from '@resource-api/core';
import { buildTestApp, testDatabases, type TestDatabase } from '@resource-api/core/testing';
import { Author, Book } from '../fixtures.js';
import { call } from '../helpers.js';
import { REDIS_URL, redisAvailable } from '../redis.js';
import { Public, securityOptions, User } from '../security/fixtures.js';

/** A document of `count` root fields (aliases of `books`). */
const rootFields = (count: number) =>
  `{ ${Array.from({ length: count }, (_, index) => `b${index}: books(first: 1) { totalCount }`).join(' ')} }`;

describe.each(testDatabases(inject('postgresUrl'), inject('mariadbUrl')))(
  'rate-limit counts on $name',
  (database: TestDatabase) => {
    const apps: FastifyInstance[] = [];
    afterEach(async () => {
      await Promise.all(apps.splice(0).map((app) => app.close()));
    });
    /** An app with the production plugin's rate limit (`rateLimit`) in front of the API (the rest of the options). */
    async function open(
      options: Omit<ResourceApiOptions, 'database' | 'resources'> & {
        resources?: ResourceApiOptions['resources'];
        rateLimit: RateLimitOptions;
      },
    ): Promise<FastifyInstance> {
      const { rateLimit, ...rest } = options;
      const app = await buildTestApp({
        database,
        resources: [Author, Book],
        graphql: { maxAliases: 100 },
        ...rest,
        production: { rateLimit },
      });
      apps.push(app);
      return app;
    }
    /** Runs a request, counting the SQL statements it runs (knex's `query` event). */
    async function counted(app: FastifyInstance, run: () => ReturnType<typeof call>) {
      const { knex } = app.resourceApi.database;
      let statements = 0;
      const count = () => statements++;
      knex.on('query', count);
      try {
        return { ...(await run()), statements };
      } finally {
        knex.off('query', count);
      }
    }

    describe('GraphQL', () => {
      const gql = (app: FastifyInstance, query: string, remoteAddress: string) =>
        counted(app, () => call(app, { method: 'POST', url: '/graphql', payload: { query }, remoteAddress }));

      it('counts a document of 50 root fields as 50 requests, and runs nothing of a document over the limit', async () => {
        const app = await open({ rateLimit: { max: 60 } });
        const first = await gql(app, rootFields(50), '203.0.113.1');
        expect(first.status, first.text).toBe(200);
        expect(Object.keys(first.body.data)).toHaveLength(50);
        expect(first.headers['x-ratelimit-remaining']).toBe('10');
        // One root field counts one.
        const one = await gql(app, rootFields(1), '203.0.113.1');
        expect(one.status).toBe(200);
        expect(one.headers['x-ratelimit-remaining']).toBe('9');
        // 50 more are over the 9 left: a 429 in GraphQL's shape, with Retry-After, and no SQL statement run.
        const over = await gql(app, rootFields(50), '203.0.113.1');
        expect(over.status, over.text).toBe(429);
        expect(Number(over.headers['retry-after'])).toBeGreaterThan(0);
        expect(over.headers['x-ratelimit-remaining']).toBe('0');
        expect(over.body).toEqual({
          data: null,
          errors: [
            {
              message: expect.stringMatching(
                /^Rate limit exceeded: at most 60 requests in the window\. Retry in \d+ seconds?\.$/,
              ),
            },
          ],
        });
        expect(over.statements).toBe(0);
        // The same count as the client's REST requests; another address has its own.
        expect((await call(app, { method: 'GET', url: '/api/books', remoteAddress: '203.0.113.1' })).status).toBe(429);
        expect((await gql(app, rootFields(50), '203.0.113.2')).status).toBe(200);
      });

      it('counts root fields in the endpoint’s own count with routes.graphql, fragments expanded', async () => {
        const app = await open({ rateLimit: { max: 100, routes: { graphql: { max: 5 } } } });
        const viaFragment =
          '{ ...F } fragment F on Query { a: books { totalCount } b: books { totalCount } c: authors { totalCount } }';
        const three = await gql(app, viaFragment, '203.0.113.3');
        expect(three.status, three.text).toBe(200);
        expect(three.headers['x-ratelimit-limit']).toBe('5');
        expect(three.headers['x-ratelimit-remaining']).toBe('2');
        expect((await gql(app, rootFields(3), '203.0.113.3')).status).toBe(429);
        // REST keeps the global count.
        expect((await call(app, { method: 'GET', url: '/api/books', remoteAddress: '203.0.113.3' })).status).toBe(200);
        // GET /graphql shares the endpoint's count.
        const viaGet = await call(app, {
          method: 'GET',
          url: '/graphql',
          query: { query: '{ __typename }' },
          remoteAddress: '203.0.113.3',
        });
        expect(viaGet.status).toBe(429);
      });

      it.skipIf(!redisAvailable)('counts root fields in the shared Redis store', async () => {
        const nameSpace = `test-rate-limit-${randomBytes(6).toString('hex')}:`;
        const app = await open({ rateLimit: { max: 100, redis: REDIS_URL, nameSpace } });
        expect((await gql(app, rootFields(40), '203.0.113.4')).status).toBe(200);
        const redis = new Redis(REDIS_URL);
        try {
          expect(await redis.get(`${nameSpace}ip:203.0.113.4`)).toBe('40');
          await redis.del(`${nameSpace}ip:203.0.113.4`);
        } finally {
          redis.disconnect();
        }
      });
    });

    describe('login', () => {
      const secured = { resources: [User, Public], security: securityOptions() };
      const guess = (
        app: FastifyInstance,
        email: string,
        remoteAddress: string,
        headers: Record<string, string> = {},
      ) =>
        counted(app, () =>
          call(app, {
            method: 'POST',
            url: '/api/auth',
            payload: { email, password: 'a wrong guess' },
            headers,
            remoteAddress,
          }),
        );

      it('counts per address whatever bearer token the guesser sends, rotating throw-away accounts’ tokens included', async () => {
        const app = await open({ ...secured, rateLimit: { max: 100, routes: { login: { max: 3 } } } });
        // Throw-away accounts, registered from elsewhere, each with a valid token.
        const tokens: string[] = [];
        for (let index = 0; index < 6; index++) {
          const email = `throwaway${index}@example.com`;
          const created = await call(app, {
            method: 'POST',
            url: '/api/users',
            payload: { email, plainPassword: 'password-123' },
            remoteAddress: `203.0.113.${100 + index}`,
          });
          expect(created.status, created.text).toBe(201);
          tokens.push(await app.resourceApi.issueToken({ id: created.body.id, email }));
        }
        const targets = ['victim1@example.com', 'victim2@example.com', 'victim3@example.com', 'victim4@example.com'];
        for (let index = 0; index < 3; index++) {
          expect(
            (await guess(app, targets[index]!, '198.51.100.7', { authorization: `Bearer ${tokens[index]}` })).status,
            `guess ${index + 1}`,
          ).toBe(401);
        }
        const limited = await guess(app, targets[3]!, '198.51.100.7', { authorization: `Bearer ${tokens[3]}` });
        expect(limited.status).toBe(429);
        expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
        expect(limited.body.detail).toMatch(/^Rate limit exceeded: at most 3 requests in the window/);
        // Refused before the credentials are looked up.
        expect(limited.statements).toBe(0);
        // The tokens still count per user on the API's other routes.
        const page = await call(app, {
          method: 'GET',
          url: '/api/pages',
          headers: { authorization: `Bearer ${tokens[4]}` },
          remoteAddress: '198.51.100.7',
        });
        expect(page.status).toBe(200);
      });

      it('counts per target account, letter case ignored, whatever the address, and leaves other accounts alone', async () => {
        const app = await open({ ...secured, rateLimit: { max: 100, routes: { login: { max: 3 } } } });
        const spellings = ['alice@example.com', 'Alice@Example.COM', ' ALICE@example.com'];
        for (const [index, email] of spellings.entries()) {
          expect((await guess(app, email, `192.0.2.${index + 1}`)).status, email).toBe(401);
        }
        const limited = await guess(app, 'alice@EXAMPLE.com', '192.0.2.99');
        expect(limited.status).toBe(429);
        expect(limited.statements).toBe(0);
        expect(limited.headers['content-type']).toBe('application/ld+json; charset=utf-8');
        expect(limited.body['hydra:description']).toMatch(
          /^Rate limit exceeded: at most 3 requests in the window\. Retry in \d+ seconds?\.$/,
        );
        // Another account from that address is not limited.
        expect((await guess(app, 'bob@example.com', '192.0.2.99')).status).toBe(401);
      });

      it('applies the global limit per address and per account when the login has no rule of its own; false turns both off', async () => {
        const app = await open({ ...secured, rateLimit: { max: 2 } });
        expect((await guess(app, 'carol@example.com', '192.0.2.10')).status).toBe(401);
        expect((await guess(app, 'carol@example.com', '192.0.2.11')).status).toBe(401);
        expect((await guess(app, 'carol@example.com', '192.0.2.12')).status).toBe(429);
        // A body without an identifier is a 400, counted per address only.
        const missing = await counted(app, () =>
          call(app, { method: 'POST', url: '/api/auth', payload: { password: 'x' }, remoteAddress: '192.0.2.13' }),
        );
        expect(missing.status).toBe(400);
        const off = await open({ ...secured, rateLimit: { max: 1, routes: { login: false } } });
        for (let index = 0; index < 3; index++)
          expect((await guess(off, 'dave@example.com', '192.0.2.20')).status).toBe(401);
      });
    });
  },
);
