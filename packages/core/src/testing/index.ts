/**
 * The public test kit: the databases a suite should run on, and a Fastify app with the plugin on one of them, in a
 * database of its own (a fresh in-memory SQLite, or a fresh PostgreSQL schema dropped when the app closes).
 *
 * @example
 * describe.each(testDatabases(process.env.TEST_POSTGRES_URL))('on $name', (database) => {
 *   it('creates a book', async () => {
 *     const app = await buildTestApp({ database, resources: [Book] });
 *     const response = await app.inject({ method: 'POST', url: '/api/books', payload: { title: 'Dune' } });
 *     expect(response.statusCode).toBe(201);
 *     await app.close();
 *   });
 * });
 */
import { randomBytes } from 'node:crypto';
import Fastify, { type FastifyInstance, type InjectOptions } from 'fastify';
import { resourceApi, type ResourceApiOptions } from '../plugin.js';
import { production, type ProductionOptions } from '../production/production-plugin.js';

/** A database a suite runs on: its name and its URL. */
export interface TestDatabase {
  readonly name: 'sqlite' | 'postgres';
  readonly url: string;
}

/** SQLite always; PostgreSQL too when a URL is given (an empty string or undefined means "not available"). */
export function testDatabases(postgresUrl: string | undefined): TestDatabase[] {
  const databases: TestDatabase[] = [{ name: 'sqlite', url: 'sqlite::memory:' }];
  if (postgresUrl) databases.push({ name: 'postgres', url: postgresUrl });
  return databases;
}

/** Options of `buildTestApp`: the plugin's options, with the database to run on instead of a URL. */
export interface TestAppOptions extends Omit<ResourceApiOptions, 'database' | 'databaseSchema'> {
  readonly database: TestDatabase;
  /** The production plugin's options, to register it before the API as the application does; none by default. */
  readonly production?: ProductionOptions;
}

/** A ready Fastify app on an isolated database; close it at the end of the test. */
export async function buildTestApp(options: TestAppOptions): Promise<FastifyInstance> {
  const { database, production: productionOptions, ...rest } = options;
  const app = Fastify({ logger: process.env.TEST_LOG ? { level: process.env.TEST_LOG } : false });
  if (productionOptions) await app.register(production, productionOptions);
  const schema = database.name === 'postgres' ? `test_${randomBytes(6).toString('hex')}` : undefined;
  await app.register(resourceApi, { ...rest, database: database.url, databaseSchema: schema });
  if (schema) {
    app.addHook('preClose', async () => {
      await app.resourceApi.database.knex.raw('DROP SCHEMA IF EXISTS ?? CASCADE', [schema]);
    });
  }
  await app.ready();
  return app;
}

/** A response of `injectJson`: the status, the headers, the body parsed when it is JSON, and the raw text. */
export interface JsonResponse {
  readonly status: number;
  readonly headers: Record<string, string | string[] | number | undefined>;
  // biome-ignore lint/suspicious/noExplicitAny: a parsed JSON body, read freely by the tests that use the kit
  readonly body: any;
  readonly text: string;
}

/** One request through `app.inject()`, with the JSON body parsed: `await injectJson(app, { method: 'GET', url: '/api/books' })`. */
export async function injectJson(app: FastifyInstance, options: InjectOptions): Promise<JsonResponse> {
  const response = await app.inject(options);
  let body: unknown;
  try {
    body = response.body === '' ? undefined : JSON.parse(response.body);
  } catch {
    body = undefined;
  }
  return { status: response.statusCode, headers: response.headers, body, text: response.body };
}
