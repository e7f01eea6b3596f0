/**
 * Every refusal goes through the error catalog, with nothing logged at error level: GraphiQL asset names that are
 * properties of every object (`constructor`, `__proto__`, `toString`…) and traversal attempts on the documentation
 * assets are 404s with the usual bodies (no server path, no stack, no "unexpected error" in the log); a JSON body
 * holding `__proto__` or `constructor.prototype` is a 400 that says so, on REST, `/api/auth` and `/graphql`, and
 * stores nothing — on SQLite and PostgreSQL.
 */
import { Writable } from 'node:stream';
import Fastify, { type FastifyInstance } from 'fastify';
import { describe, expect, inject, it } from 'vitest';
import { resourceApi } from '@resource-api/core';
import { testDatabases, type TestDatabase, createTestSchemaName, dropTestSchema } from '@resource-api/core/testing';
import { call } from '../helpers.js';
import { Note, securityOptions, User } from '../security/fixtures.js';

interface LogLine {
  readonly level: number;
  readonly msg: string;
}

/** Pino's level for `error`: what an operator is paged for. */
const ERROR_LEVEL = 50;

/** An app on its own database whose log lines are kept, to check at which level each request was logged. */
async function appWithLog(database: TestDatabase): Promise<{ app: FastifyInstance; log: LogLine[] }> {
  const log: LogLine[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n'))
        if (line.trim() !== '') log.push(JSON.parse(line) as LogLine);
      done();
    },
  });
  const app = Fastify({ logger: { level: 'info', stream } });
  const schema = createTestSchemaName(database);
  await app.register(resourceApi, {
    resources: [User, Note],
    security: securityOptions(),
    database: database.url,
    databaseSchema: schema,
  });
  if (schema) app.addHook('preClose', async () => void (await dropTestSchema(app.resourceApi.database.knex, schema)));
  await app.ready();
  return { app, log };
}

/** The usual 404 body: JSON-LD hydra:Error, RFC 7807 members, and nothing of the server (paths, stacks, modules). */
function expectCatalog404(
  response: { status: number; body: Record<string, unknown>; text: string },
  url: string,
): void {
  expect(response.status, url).toBe(404);
  expect(response.body, url).toMatchObject({
    '@context': '/api/contexts/Error',
    '@type': 'hydra:Error',
    title: 'An error occurred',
    status: 404,
    type: '/errors/404',
  });
  expect(response.text, url).not.toMatch(/Require stack|node_modules|\/work\/|MODULE_NOT_FOUND|\.ts\b|at .+:\d+:\d+/);
}

describe.each(testDatabases(inject('postgresUrl'), inject('mariadbUrl')))(
  'refusals through the error catalog on $name',
  (database) => {
    const withApp = async (test: (app: FastifyInstance, log: LogLine[]) => Promise<void>) => {
      const { app, log } = await appWithLog(database);
      try {
        await test(app, log);
      } finally {
        await app.close();
      }
    };
    const errorsLogged = (log: LogLine[]) => log.filter((line) => line.level >= ERROR_LEVEL).map((line) => line.msg);

    it('answers 404 for a GraphiQL asset named like a property of every object, and logs no error', () =>
      withApp(async (app, log) => {
        for (const name of [
          'constructor',
          '__proto__',
          'toString',
          'hasOwnProperty',
          'valueOf',
          '__defineGetter__',
          'isPrototypeOf',
          'nope.js',
        ]) {
          const url = `/graphql/graphiql/${name}`;
          expectCatalog404(await call(app, { method: 'GET', url }), url);
          const plain = await call(app, { method: 'GET', url, headers: { accept: 'application/json' } });
          expect(plain.headers['content-type']).toBe('application/problem+json; charset=utf-8');
          expect(plain.body).toEqual({
            type: '/errors/404',
            title: 'An error occurred',
            detail: `No route found for "GET ${url}".`,
            status: 404,
          });
        }
        expect(errorsLogged(log)).toEqual([]);
        // The real assets are still served.
        const script = await app.inject({ method: 'GET', url: '/graphql/graphiql/graphiql.js' });
        expect(script.statusCode).toBe(200);
        expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8');
      }));

    it('answers 404 for traversal attempts on the documentation assets, and logs no error', () =>
      withApp(async (app, log) => {
        const attempts = [
          '/api/docs/ui/static/..%5cpackage.json',
          '/api/docs/ui/static/..%5c..%5c..%5cpackage.json',
          '/api/docs/ui/static/%00',
          '/api/docs/ui/static/index.css%00.js',
          '/api/docs/ui/static/..%2f..%2fpackage.json',
          '/api/docs/ui/static/%2e%2e%2f%2e%2e%2fpackage.json',
          '/api/docs/ui/static/%2e%2e/%2e%2e/%2e%2e/package.json',
          '/api/docs/ui/static/a/%2e%2e/%2e%2e/%2e%2e/%2e%2e/etc/passwd',
          '/api/docs/ui/..%2f..%2fpackage.json',
          '/api/docs/..%2f..%2fpackage.json',
          '/api/docs/ui/static/....//....//package.json',
        ];
        for (const url of attempts) {
          const response = await call(app, { method: 'GET', url });
          expectCatalog404(response, url);
          expect(response.text, url).not.toContain('"name"'); // no package.json came back
        }
        expect(errorsLogged(log)).toEqual([]);
        expect((await app.inject({ method: 'GET', url: '/api/docs/ui/static/index.css' })).statusCode).toBe(200);
      }));

    it('says that a JSON body must not hold __proto__ or constructor.prototype, on REST, /api/auth and /graphql, and stores nothing', () =>
      withApp(async (app, log) => {
        const created = await call(app, {
          method: 'POST',
          url: '/api/users',
          payload: { email: 'ann@example.com', plainPassword: 'password-1' },
        });
        expect(created.status).toBe(201);
        const token = (
          await call(app, {
            method: 'POST',
            url: '/api/auth',
            payload: { email: 'ann@example.com', password: 'password-1' },
          })
        ).body.token as string;
        const headers = { 'content-type': 'application/json', authorization: `Bearer ${token}` };
        const proto = 'The JSON body must not contain the key "__proto__".';
        const constructorPrototype = 'The JSON body must not contain the key "constructor.prototype".';
        const bodies: Array<[string, string]> = [
          ['{"__proto__":{"x":1}}', proto],
          ['{"text":"T","__proto__":{"x":1}}', proto],
          ['{"text":"T","nested":{"deeper":[{"__proto__":{"x":1}}]}}', proto],
          ['{"text":"T","\\u005f\\u005fproto__":{"x":1}}', proto],
          ['{"text":"T","constructor":{"prototype":{"x":1}}}', constructorPrototype],
        ];
        for (const [payload, detail] of bodies) {
          for (const [method, url] of [
            ['POST', '/api/notes'],
            ['PUT', '/api/notes/1'],
          ] as const) {
            const response = await call(app, { method, url, headers, payload });
            expect(response.status, `${method} ${payload}`).toBe(400);
            expect(response.body, payload).toMatchObject({ '@type': 'hydra:Error', status: 400, detail });
          }
          const patch = await call(app, {
            method: 'PATCH',
            url: '/api/notes/1',
            headers: { ...headers, 'content-type': 'application/merge-patch+json' },
            payload,
          });
          expect(patch.body.detail, payload).toBe(detail);
          const login = await call(app, {
            method: 'POST',
            url: '/api/auth',
            headers: { 'content-type': 'application/json' },
            payload,
          });
          expect(login.status, payload).toBe(400);
          expect(login.body.detail, payload).toBe(detail);
          expect(login.body.token).toBeUndefined();
          const graphql = await call(app, {
            method: 'POST',
            url: '/graphql',
            headers,
            payload: `{"query":"{ __typename }","variables":${payload}}`,
          });
          expect(graphql.status, payload).toBe(400);
          expect(graphql.body.errors[0].message, payload).toBe(detail);
        }
        // Malformed JSON still says it is malformed.
        expect(
          (await call(app, { method: 'POST', url: '/api/notes', headers, payload: '{"text":' })).body.detail,
        ).toMatch(/^Syntax error: /);
        expect(Number((await app.resourceApi.database.knex('note').count({ n: '*' }))[0]!.n)).toBe(0);
        expect(Object.prototype).not.toHaveProperty('x');
        expect(errorsLogged(log)).toEqual([]);
      }));
  },
);
