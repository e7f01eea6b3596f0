/**
 * The input validators of the write operations, and the schemas of mercurius's GraphQL routes, are compiled soon
 * after the server starts listening (100 ms), not during start-up: one per turn of the event loop, each only if no
 * request compiled it first. Writes and GraphQL requests right after `listen` are validated as always, on both
 * databases, over real HTTP.
 */
import { Writable } from 'node:stream';
import Fastify, { type FastifyInstance } from 'fastify';
import { describe, expect, inject, it } from 'vitest';
import { resourceApi } from '@resource-api/core';
import { testDatabases, createTestSchemaName, dropTestSchema, type TestDatabase } from '@resource-api/core/testing';
import { Author, Book } from '../fixtures.js';

/** The write operations of Author and Book (post, put, patch each): one validator each, all with fixed groups. */
const WRITE_OPERATIONS = 6;
/** mercurius's routes: GET and Fastify's HEAD beside it (querystring, response each), and POST (body, response). */
const GRAPHQL_SCHEMAS = 6;
const STEPS = WRITE_OPERATIONS + GRAPHQL_SCHEMAS;

/** An app whose log lines (JSON, debug and up) are kept in `lines`. */
async function appWithLog(database: TestDatabase): Promise<{ app: FastifyInstance; lines: Record<string, unknown>[] }> {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n'))
        if (line.trim() !== '') lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  const app = Fastify({ logger: { level: 'debug', stream } });
  const schema = createTestSchemaName(database);
  await app.register(resourceApi, { resources: [Author, Book], database: database.url, databaseSchema: schema });
  if (schema) app.addHook('onClose', async () => void (await dropTestSchema(app.resourceApi.database.knex, schema)));
  await app.ready();
  return { app, lines };
}

const warmUpLine = (lines: Record<string, unknown>[]) =>
  lines.find((line) => line.msg === 'start-up steps done after listening');

async function until(condition: () => boolean): Promise<void> {
  for (let waited = 0; !condition(); waited += 10) {
    if (waited > 5000) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe.each(testDatabases(inject('postgresUrl'), inject('mariadbUrl')))(
  'validators compiled after listening, on $name',
  (database) => {
    it('compiles every validator once the server listens, and validates the writes that come meanwhile', async () => {
      const { app, lines } = await appWithLog(database);
      try {
        expect(warmUpLine(lines)).toBeUndefined();
        const address = await app.listen({ host: '127.0.0.1', port: 0 });
        const post = (url: string, body: unknown) =>
          fetch(`${address}${url}`, {
            method: 'POST',
            headers: { 'content-type': 'application/ld+json', accept: 'application/ld+json' },
            body: JSON.stringify(body),
          });
        const graphql = (body: unknown) =>
          fetch(`${address}/graphql`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify(body),
          });
        // Sent at once, while the warm-up may still be running: each request is validated either way.
        const [created, refused, malformed] = await Promise.all([
          post('/api/authors', { name: 'Ursula K. Le Guin' }),
          post('/api/authors', { name: 42 }),
          graphql({ query: '{ authors { totalCount } }', variables: 'x' }),
        ]);
        expect(malformed.status).toBe(400);
        expect(await malformed.json()).toEqual({
          data: null,
          errors: [{ message: 'body/variables must be object,null' }],
        });
        expect(created.status).toBe(201);
        // A wrong type is what the compiled validator finds: 400, with the violation on the property.
        expect(refused.status).toBe(400);
        expect(
          ((await refused.json()) as { violations: { propertyPath: string; message: string }[] }).violations,
        ).toEqual([expect.objectContaining({ propertyPath: 'name', message: 'This value should be of type string.' })]);
        await until(() => warmUpLine(lines) !== undefined);
        // Author's POST may have compiled its own validator first, the GraphQL request its body's validator and its
        // response's serializer; the warm-up then skipped them.
        expect(warmUpLine(lines)?.steps).toBeGreaterThanOrEqual(STEPS - 3);
        expect(warmUpLine(lines)?.steps).toBeLessThanOrEqual(STEPS);
        const list = (await (
          await fetch(`${address}/api/authors`, { headers: { accept: 'application/ld+json' } })
        ).json()) as { 'hydra:totalItems': number };
        expect(list['hydra:totalItems']).toBe(1);
        expect(await (await graphql({ query: '{ authors { totalCount } }' })).json()).toEqual({
          data: { authors: { totalCount: 1 } },
        });
      } finally {
        await app.close();
      }
    });

    it('skips the validators and schemas that requests compiled before the server listened', async () => {
      const { app, lines } = await appWithLog(database);
      try {
        const response = await app.inject({
          method: 'POST',
          url: '/api/authors',
          headers: { 'content-type': 'application/ld+json' },
          payload: { name: 'N. K. Jemisin' },
        });
        expect(response.statusCode).toBe(201);
        // GraphQL's POST route: its body's validator and its response's serializer.
        const counted = await app.inject({
          method: 'POST',
          url: '/graphql',
          payload: { query: '{ authors { totalCount } }' },
        });
        expect(counted.json()).toEqual({ data: { authors: { totalCount: 1 } } });
        const listening = Date.now();
        await app.listen({ host: '127.0.0.1', port: 0 });
        await until(() => warmUpLine(lines) !== undefined);
        expect(warmUpLine(lines)?.steps).toBe(STEPS - 3);
        // The first step waits 100 ms after listen, leaving the turns of the event loop to the first requests.
        expect(warmUpLine(lines)?.time).toBeGreaterThanOrEqual(listening + 100);
      } finally {
        await app.close();
      }
    });
  },
);
