/**
 * The public test kit: the databases a suite should run on, and a Fastify app with the plugin on one of them, in a
 * database of its own (a fresh in-memory SQLite, a fresh PostgreSQL schema or a fresh MariaDB database, dropped when
 * the app closes).
 *
 * @example
 * describe.each(testDatabases(process.env.TEST_POSTGRES_URL, process.env.TEST_MARIADB_URL))('on $name', (database) => {
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
import type { Knex } from 'knex';
import { resourceApi, type ResourceApiOptions } from '../plugin.js';
import { production, type ProductionOptions } from '../production/production-plugin.js';

/** A database a suite runs on: its name and its URL. */
export interface TestDatabase {
  readonly name: 'sqlite' | 'postgres' | 'mariadb';
  readonly url: string;
}

/**
 * SQLite always; PostgreSQL and MariaDB (or MySQL) too when their URL is given (an empty string or undefined means
 * "not available").
 */
export function testDatabases(postgresUrl: string | undefined, mariadbUrl?: string): TestDatabase[] {
  const databases: TestDatabase[] = [{ name: 'sqlite', url: 'sqlite::memory:' }];
  if (postgresUrl) databases.push({ name: 'postgres', url: postgresUrl });
  if (mariadbUrl) databases.push({ name: 'mariadb', url: mariadbUrl });
  return databases;
}

/**
 * A fresh name for a test's own schema (PostgreSQL) or database (MariaDB), for the plugin's `databaseSchema`;
 * undefined on SQLite, whose in-memory database is the connection's own. Drop it with `dropTestSchema`.
 */
export function createTestSchemaName(database: TestDatabase): string | undefined {
  return database.name === 'sqlite' ? undefined : `test_${randomBytes(6).toString('hex')}`;
}

/** Drops a schema of `createTestSchemaName` with everything in it: a PostgreSQL schema, a MariaDB database. */
export async function dropTestSchema(knex: Knex, schema: string): Promise<void> {
  if (/mysql/.test(String(knex.client.config.client))) await knex.raw('DROP DATABASE IF EXISTS ??', [schema]);
  else await knex.raw('DROP SCHEMA IF EXISTS ?? CASCADE', [schema]);
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
  const schema = createTestSchemaName(database);
  await app.register(resourceApi, { ...rest, database: database.url, databaseSchema: schema });
  if (schema) app.addHook('preClose', () => dropTestSchema(app.resourceApi.database.knex, schema));
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

/**
 * One request through `app.inject()`, with the JSON body parsed: `await injectJson(app, { method: 'GET', url:
 * '/api/books' })`.
 */
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
