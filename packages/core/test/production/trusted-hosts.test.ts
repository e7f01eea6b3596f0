/**
 * The `trustedHosts` option: a request for a host that is not one of them (its `Host`, or `X-Forwarded-Host` when
 * the app trusts its proxy) is a 400 with the catalog's body on every route (REST, login, documents, GraphQL,
 * GraphiQL, Swagger UI's files) and runs nothing; a trusted host, in any letter case and with a port, is served, and
 * the absolute IRIs (the `Link` header, the Hydra `@vocab`, the contexts) name only it — on SQLite and PostgreSQL.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { describe, expect, inject, it } from 'vitest';
import { production, resourceApi, type ResourceApiOptions } from '@resource-api/core';
import { testDatabases, type TestDatabase, createTestSchemaName, dropTestSchema } from '@resource-api/core/testing';
import { call } from '../helpers.js';
import { Public, securityOptions, User } from '../security/fixtures.js';

const TRUSTED = ['api.example.com', /^([a-z0-9-]+\.)?shop\.example$/];

/** An app on its own database, with Fastify's `trustProxy` as given (the test kit's apps do not take it). */
async function build(
  database: TestDatabase,
  options: Partial<ResourceApiOptions> & { trustProxy?: boolean } = {},
): Promise<FastifyInstance> {
  const { trustProxy = false, ...plugin } = options;
  const app = Fastify({ trustProxy });
  // The application's own route, which the API's trusted hosts do not concern.
  app.get('/own', async () => ({ own: true }));
  const schema = createTestSchemaName(database);
  try {
    await app.register(production, {});
    await app.register(resourceApi, {
      resources: [User, Public],
      security: securityOptions(),
      database: database.url,
      databaseSchema: schema,
      ...plugin,
    });
    if (schema) app.addHook('preClose', async () => void (await dropTestSchema(app.resourceApi.database.knex, schema)));
    await app.ready();
  } catch (error) {
    await app.close();
    throw error;
  }
  return app;
}

async function using(app: Promise<FastifyInstance>, test: (app: FastifyInstance) => Promise<void>): Promise<void> {
  const ready = await app;
  try {
    await test(ready);
  } finally {
    await ready.close();
  }
}

const REQUESTS = [
  { method: 'GET', url: '/api/pages' },
  { method: 'POST', url: '/api/pages', payload: { title: 'Forged' } },
  { method: 'GET', url: '/api' },
  { method: 'GET', url: '/api/docs.jsonld' },
  { method: 'GET', url: '/api/contexts/Error' },
  { method: 'GET', url: '/api/docs/ui/static/index.css' },
  { method: 'POST', url: '/api/auth', payload: { email: 'ann@example.com', password: 'password-1' } },
  { method: 'POST', url: '/graphql', payload: { query: '{ __typename }' } },
  { method: 'GET', url: '/graphql', headers: { accept: 'text/html' } },
  { method: 'GET', url: '/graphql/graphiql/graphiql.js' },
  { method: 'GET', url: '/api/unknown' },
] as const;

describe.each(testDatabases(inject('postgresUrl'), inject('mariadbUrl')))('trusted hosts on $name', (database) => {
  it('answers 400 with the catalog body to a request for any other host, on every route, and runs nothing', () =>
    using(build(database, { trustedHosts: TRUSTED }), async (app) => {
      for (const host of [
        'evil.example',
        'api.example.com.evil.example',
        'evil-api.example.com',
        'shop.example.evil',
        'a.b.shop.example',
        'api.example.com:evil',
        'api.example.com:1:2',
      ]) {
        for (const request of REQUESTS) {
          const response = await call(app, {
            ...request,
            headers: { ...('headers' in request ? request.headers : {}), host },
          });
          const label = `${host} ${request.method} ${request.url}`;
          expect(response.status, label).toBe(400);
          expect(response.body, label).toMatchObject({
            '@context': '/api/contexts/Error',
            '@type': 'hydra:Error',
            status: 400,
            detail: `The host "${host}" is not one this API serves (trustedHosts): send the API's own host name.`,
          });
          expect(response.text, label).not.toContain('docs.jsonld');
        }
      }
      const plain = await call(app, {
        method: 'GET',
        url: '/api/pages',
        headers: { host: 'evil.example', accept: 'application/json' },
      });
      expect(plain.body).toEqual({
        type: '/errors/400',
        title: 'An error occurred',
        status: 400,
        detail: `The host "evil.example" is not one this API serves (trustedHosts): send the API's own host name.`,
      });
      expect(Number((await app.resourceApi.database.knex('page').count({ n: '*' }))[0]!.n)).toBe(0);
      // The health routes answer every host (probes come by IP address), as do the application's own routes.
      expect((await call(app, { method: 'GET', url: '/health', headers: { host: '10.0.0.7:8000' } })).status).toBe(200);
      expect((await call(app, { method: 'GET', url: '/own', headers: { host: 'evil.example' } })).body).toEqual({
        own: true,
      });
    }));

  it('serves a trusted host in any letter case and with a port, and names only it in absolute IRIs', () =>
    using(build(database, { trustedHosts: TRUSTED }), async (app) => {
      for (const host of ['api.example.com', 'API.Example.COM:8443', 'shop.example', 'eu.shop.example:80']) {
        const created = await call(app, {
          method: 'POST',
          url: '/api/pages',
          headers: { host },
          payload: { title: 'T' },
        });
        expect(created.status, host).toBe(201);
        expect(created.headers.link, host).toBe(
          `<http://${host}/api/docs.jsonld>; rel="http://www.w3.org/ns/hydra/core#apiDocumentation"`,
        );
        const docs = await call(app, { method: 'GET', url: '/api/docs.jsonld', headers: { host } });
        expect(docs.body['@context']['@vocab'], host).toBe(`http://${host}/api/docs.jsonld#`);
        expect(
          (await call(app, { method: 'GET', url: '/graphql/graphiql/graphiql.js', headers: { host } })).status,
        ).toBe(200);
      }
    }));

  it('checks X-Forwarded-Host instead of Host when the app trusts its proxy, and ignores it otherwise', async () => {
    await using(build(database, { trustedHosts: TRUSTED, trustProxy: true }), async (app) => {
      const forged = await call(app, {
        method: 'GET',
        url: '/api/pages',
        headers: { host: 'api.example.com', 'x-forwarded-host': 'evil.example' },
      });
      expect(forged.status).toBe(400);
      const forwarded = await call(app, {
        method: 'GET',
        url: '/api/pages',
        headers: { host: '10.0.0.7:8000', 'x-forwarded-host': 'api.example.com', 'x-forwarded-proto': 'https' },
      });
      expect(forwarded.status).toBe(200);
      expect(forwarded.headers.link).toBe(
        '<https://api.example.com/api/docs.jsonld>; rel="http://www.w3.org/ns/hydra/core#apiDocumentation"',
      );
      // A scheme header that is not http or https never reaches an IRI.
      const scheme = await call(app, {
        method: 'GET',
        url: '/api/docs.jsonld',
        headers: { 'x-forwarded-host': 'api.example.com', 'x-forwarded-proto': 'javascript' },
      });
      expect(scheme.body['@context']['@vocab']).toBe('http://api.example.com/api/docs.jsonld#');
    });
    await using(build(database, { trustedHosts: TRUSTED }), async (app) => {
      const ignored = await call(app, {
        method: 'GET',
        url: '/api/pages',
        headers: { host: 'api.example.com', 'x-forwarded-host': 'evil.example' },
      });
      expect(ignored.status).toBe(200);
      expect(ignored.headers.link).toContain('<http://api.example.com/api/docs.jsonld>');
      expect(
        (
          await call(app, {
            method: 'GET',
            url: '/api/pages',
            headers: { host: 'evil.example', 'x-forwarded-host': 'api.example.com' },
          })
        ).status,
      ).toBe(400);
    });
  });

  it('names each host in its own responses, however many hosts a client sends (each kept value is bounded)', () =>
    using(build(database, { mercure: {} }), async (app) => {
      // More hosts than the Link values and Hydra documents kept per origin (64): the first host comes back after the
      // memo was emptied, and every answer still names its own host only.
      const hosts = [...Array.from({ length: 150 }, (_, index) => `host-${index}.example`), 'host-0.example'];
      for (const host of hosts) {
        const page = await call(app, { method: 'GET', url: '/api/pages', headers: { host } });
        expect(page.status, host).toBe(200);
        expect(page.headers.link, host).toBe(
          `<http://${host}/api/docs.jsonld>; rel="http://www.w3.org/ns/hydra/core#apiDocumentation", ` +
            `<http://${host}/.well-known/mercure>; rel="mercure"`,
        );
        const docs = await call(app, { method: 'GET', url: '/api/docs.jsonld', headers: { host } });
        expect(docs.body['@context']['@vocab'], host).toBe(`http://${host}/api/docs.jsonld#`);
      }
    }));

  it('serves every host without the option, and refuses an option that names no host name at start', async () => {
    await using(build(database), async (app) =>
      expect(
        (await call(app, { method: 'GET', url: '/api/pages', headers: { host: 'anything.example' } })).status,
      ).toBe(200),
    );
    for (const trustedHosts of [
      [],
      ['https://api.example.com'],
      ['api.example.com:8443'],
      ['api.example.com/api'],
      [42],
    ]) {
      await expect(
        build(database, { trustedHosts: trustedHosts as never }),
        JSON.stringify(trustedHosts),
      ).rejects.toThrow(/^trustedHosts/);
    }
  });
});
