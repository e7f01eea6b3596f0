/**
 * The production plugin's reach: with `routes: 'api'` (the default) its pieces (request ids, security headers, CORS,
 * rate limits, coalesced writes) serve the API's routes, its 404s and the health routes, and leave the application's
 * own routes alone unless one asks (`config.rateLimit`); with `routes: 'all'` they serve every route. Registered
 * after the API, or given to the API as options, it refuses to start. On SQLite and PostgreSQL.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { DeclarationError, type ProductionOptions, production, resourceApi } from '@resource-api/core';
import { testDatabases, type TestDatabase, createTestSchemaName, dropTestSchema } from '@resource-api/core/testing';
import { Author, Book } from '../fixtures.js';
import { call } from '../helpers.js';

const ORIGIN = 'https://admin.example.com';
const PIECES: ProductionOptions = { cors: { origin: [ORIGIN] }, rateLimit: { max: 2 } };

const apps: FastifyInstance[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
});

/** The production plugin, then routes of the application's own, then the API on its own database. */
async function build(database: TestDatabase, options: ProductionOptions): Promise<FastifyInstance> {
  const app = Fastify();
  apps.push(app);
  await app.register(production, options);
  app.get('/own', async () => ({ own: true }));
  // An own route that asks for the rate limit itself.
  app.get('/own-limited', { config: { rateLimit: { max: 1 } } }, async () => ({ own: true }));
  const schema = createTestSchemaName(database);
  await app.register(resourceApi, {
    resources: [Author, Book],
    database: database.url,
    databaseSchema: schema,
  });
  if (schema)
    app.addHook('preClose', async () => {
      await dropTestSchema(app.resourceApi.database.knex, schema);
    });
  await app.ready();
  return app;
}

const get = (app: FastifyInstance, url: string, remoteAddress = '203.0.113.9') =>
  call(app, { method: 'GET', url, headers: { origin: ORIGIN }, remoteAddress });

/** The headers the pieces set, present or not. */
function pieces(headers: Record<string, unknown>): Record<string, boolean> {
  return {
    requestId: headers['x-request-id'] !== undefined,
    securityHeaders: headers['x-content-type-options'] === 'nosniff',
    cors: headers['access-control-allow-origin'] === ORIGIN,
    rateLimit: headers['x-ratelimit-limit'] !== undefined,
  };
}

const ALL = { requestId: true, securityHeaders: true, cors: true, rateLimit: true };
const NONE = { requestId: false, securityHeaders: false, cors: false, rateLimit: false };

describe.each(testDatabases(inject('postgresUrl'), inject('mariadbUrl')))(
  'the production plugin on $name',
  (database) => {
    it("serves the API's routes and leaves the application's own alone, by default", async () => {
      const app = await build(database, PIECES);
      const urls = ['/api/authors', '/api/docs.jsonld', '/graphql?query=%7B__typename%7D'];
      for (const [index, url] of urls.entries()) {
        const response = await get(app, url, `203.0.113.${100 + index}`);
        expect(response.status, url).toBe(200);
        expect(pieces(response.headers), url).toEqual(ALL);
      }
      // The API's 404s get the request hooks (the rate limit counts routes, and an unknown path is none).
      const missing = await get(app, '/api/nowhere');
      expect(missing.status).toBe(404);
      expect(pieces(missing.headers)).toMatchObject({ requestId: true, securityHeaders: true });
      // The health routes are the plugin's own: never limited, the other pieces on.
      expect(pieces((await get(app, '/health')).headers)).toEqual({ ...ALL, cors: false, rateLimit: false });

      for (let i = 0; i < 3; i++) {
        const own = await get(app, '/own');
        expect(own.status, `own request ${i + 1}`).toBe(200);
        expect(pieces(own.headers)).toEqual(NONE);
      }
      expect(pieces((await get(app, '/nowhere')).headers)).toEqual(NONE);
      // A CORS preflight for the GraphQL endpoint is answered; one for an own path is not.
      const preflight = (url: string) =>
        call(app, {
          method: 'OPTIONS',
          url,
          headers: { origin: ORIGIN, 'access-control-request-method': 'POST' },
          remoteAddress: '203.0.113.10',
        });
      expect((await preflight('/graphql')).headers['access-control-allow-origin']).toBe(ORIGIN);
      expect((await preflight('/own')).headers['access-control-allow-origin']).toBeUndefined();
    });

    it('limits an own route that asks for it, with its own rule', async () => {
      const app = await build(database, PIECES);
      expect((await get(app, '/own-limited', '203.0.113.20')).status).toBe(200);
      const limited = await get(app, '/own-limited', '203.0.113.20');
      expect(limited.status).toBe(429);
      expect(limited.headers['retry-after']).toBeDefined();
    });

    it("serves every route with routes: 'all'", async () => {
      const app = await build(database, { ...PIECES, routes: 'all' });
      expect(pieces((await get(app, '/own', '203.0.113.30')).headers)).toEqual(ALL);
      expect(pieces((await get(app, '/api/authors', '203.0.113.30')).headers)).toEqual(ALL);
      // Both count against the one global limit of 2.
      expect((await get(app, '/own', '203.0.113.30')).status).toBe(429);
      expect(pieces((await get(app, '/nowhere')).headers)).toMatchObject({ requestId: true, securityHeaders: true });
    });
  },
);

describe('registering the production plugin', () => {
  it('refuses to start when it comes after the API', async () => {
    const app = Fastify();
    apps.push(app);
    await app.register(resourceApi, { resources: [Author, Book], database: 'sqlite::memory:' });
    await expect(app.register(production, {}).ready()).rejects.toThrow(
      new DeclarationError(
        'Register the production plugin before resourceApi: its pieces reach the API through the routes the API defines after it.',
      ),
    );
  });

  it('refuses an option of its own that the API was given, naming where it moved', async () => {
    const app = Fastify();
    apps.push(app);
    const moved = { cors: { origin: '*' }, rateLimit: { max: 1 } } as Record<string, unknown>;
    await expect(
      app.register(resourceApi, { resources: [Author, Book], database: 'sqlite::memory:', ...moved }).ready(),
    ).rejects.toThrow(
      'resourceApi: cors, rateLimit are options of the production plugin now: register it before resourceApi, app.register(production, { cors: …, rateLimit: … }) (docs/production.md).',
    );
  });

  it('refuses an unknown option and a routes value that is neither api nor all', async () => {
    for (const options of [{ corsOrigin: '*' }, { routes: 'own' }] as unknown as ProductionOptions[]) {
      const app = Fastify();
      apps.push(app);
      await expect(app.register(production, options).ready()).rejects.toThrow(DeclarationError);
    }
  });
});
