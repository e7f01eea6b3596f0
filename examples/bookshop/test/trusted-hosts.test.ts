/**
 * The contract's `TRUSTED_HOSTS` (comma-separated host names): when set, a request whose `Host` is not one of them
 * gets 400 (the usual error body), on the API, its documents and GraphQL, and writes nothing; the hosts it names are
 * served, and the API's absolute IRIs name only them. Unset, any host is served. On SQLite and PostgreSQL.
 */
import { createTestSchemaName, dropTestSchema } from '@resource-api/core/testing';
import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import { buildBookshop } from '../src/app.js';
import { ConfigError, loadConfig } from '../src/config.js';
import { call, databases, TEST_JWT_SECRET } from './support.js';

/** The bookshop as `main.ts` builds it from these environment variables, on a database of its own. */
async function bookshopFrom(
  env: Record<string, string>,
  database: (typeof databases)[number],
  test: (app: FastifyInstance) => Promise<void>,
): Promise<void> {
  const config = loadConfig({ JWT_SECRET: TEST_JWT_SECRET, ...env });
  const schema = createTestSchemaName(database);
  const app = await buildBookshop({
    database: database.url,
    ...(schema ? { databaseSchema: schema } : {}),
    jwtSecret: config.jwtSecret,
    trustProxy: config.trustProxy,
    ...(config.trustedHosts ? { trustedHosts: config.trustedHosts } : {}),
  });
  try {
    await test(app);
  } finally {
    if (schema) await dropTestSchema(app.resourceApi.database.knex, schema);
    await app.close();
  }
}

describe.each(databases)('TRUSTED_HOSTS on $name', (database) => {
  it('answers 400 to a request for another host, on every endpoint, and writes nothing', () =>
    bookshopFrom({ TRUSTED_HOSTS: 'shop.example, www.shop.example' }, database, async (app) => {
      for (const request of [
        { method: 'GET', url: '/api/books' },
        { method: 'POST', url: '/api/authors', payload: { name: 'Forged' } },
        {
          method: 'POST',
          url: '/api/users',
          payload: { email: 'eve@example.com', plainPassword: 'correct horse battery' },
        },
        { method: 'POST', url: '/api/auth', payload: { email: 'eve@example.com', password: 'correct horse battery' } },
        { method: 'GET', url: '/api/docs.jsonld' },
        { method: 'GET', url: '/api' },
        { method: 'POST', url: '/graphql', payload: { query: '{ __typename }' } },
      ] as const) {
        const response = await call(app, { ...request, headers: { host: 'evil.example' } });
        expect(response.status, request.url).toBe(400);
        expect(response.body, request.url).toMatchObject({
          '@context': '/api/contexts/Error',
          '@type': 'hydra:Error',
          title: 'An error occurred',
          status: 400,
        });
        expect(response.body.detail, request.url).toContain('"evil.example"');
      }
      const { knex } = app.resourceApi.database;
      expect(Number((await knex('author').count({ n: '*' }))[0]!.n)).toBe(0);
      expect(Number((await knex('user').count({ n: '*' }))[0]!.n)).toBe(0);
    }));

  it('serves the hosts it names, and writes only them into the absolute IRIs', () =>
    bookshopFrom({ TRUSTED_HOSTS: 'shop.example, www.shop.example' }, database, async (app) => {
      for (const host of ['shop.example', 'WWW.Shop.Example:8000']) {
        const response = await call(app, { method: 'GET', url: '/api/books', headers: { host } });
        expect(response.status, host).toBe(200);
        expect(response.headers.link).toBe(
          `<http://${host}/api/docs.jsonld>; rel="http://www.w3.org/ns/hydra/core#apiDocumentation", <http://${host}/.well-known/mercure>; rel="mercure"`,
        );
        expect(
          (await call(app, { method: 'GET', url: '/api/docs.jsonld', headers: { host } })).body['@context']['@vocab'],
        ).toBe(`http://${host}/api/docs.jsonld#`);
      }
    }));

  it('serves any host when unset', () =>
    bookshopFrom({}, database, async (app) => {
      expect(
        (await call(app, { method: 'GET', url: '/api/books', headers: { host: 'anything.example' } })).status,
      ).toBe(200);
    }));
});

describe('TRUSTED_HOSTS in the configuration', () => {
  it('is read as a list of host names, trimmed; a value with a scheme, a port or a path is refused', () => {
    expect(
      loadConfig({ JWT_SECRET: TEST_JWT_SECRET, TRUSTED_HOSTS: ' shop.example ,www.shop.example ' }).trustedHosts,
    ).toEqual(['shop.example', 'www.shop.example']);
    expect(loadConfig({ JWT_SECRET: TEST_JWT_SECRET }).trustedHosts).toBeUndefined();
    for (const value of [
      'https://shop.example',
      'shop.example:8000',
      'shop.example/api',
      'shop.example,,www.shop.example',
    ]) {
      expect(() => loadConfig({ JWT_SECRET: TEST_JWT_SECRET, TRUSTED_HOSTS: value }), value).toThrow(ConfigError);
    }
  });
});
