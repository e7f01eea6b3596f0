/**
 * Shared by the end-to-end tests: the databases to run on (SQLite always, PostgreSQL and MariaDB when they answer), a
 * fresh bookshop per test on its own database (a new in-memory SQLite, a new PostgreSQL schema or MariaDB database
 * dropped afterwards), and JSON requests through `inject()`.
 *
 * Every bookshop is started as the contract's first admin would be (`ADMIN_EMAIL` / `ADMIN_PASSWORD`, here the
 * `admin` option with `ADMIN`): the admin is user 1, so the users a test registers get ids from 2 on. Writes that the
 * contract reserves to admins send `bearer(shop.adminToken)`; users register and log in with `registerAndLogin()`.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, expect, inject } from 'vitest';
import {
  injectJson as call,
  testDatabases,
  type TestDatabase,
  createTestSchemaName,
  dropTestSchema,
} from '@resource-api/core/testing';
import { buildBookshop, type BookshopOptions } from '../src/app.js';

declare module 'vitest' {
  export interface ProvidedContext {
    postgresUrl: string;
    mariadbUrl: string;
  }
}

/** SQLite, and PostgreSQL and MariaDB when the global setup found them reachable. */
export const databases: TestDatabase[] = testDatabases(inject('postgresUrl'), inject('mariadbUrl'));

/** A date-time as the API writes it: RFC 3339 in UTC with an explicit offset. */
export const DATETIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?\+00:00$/;

/** The `Link` header of every API response: the API documentation, then the Mercure hub (real-time updates). */
export const HYDRA_LINK =
  '<http://localhost:80/api/docs.jsonld>; rel="http://www.w3.org/ns/hydra/core#apiDocumentation", ' +
  '<http://localhost:80/.well-known/mercure>; rel="mercure"';
export const JSONLD = 'application/ld+json; charset=utf-8';
export const MERGE_PATCH = { 'content-type': 'application/merge-patch+json' } as const;

/** The HS256 secret of the test bookshops (at least 32 bytes, as `JWT_SECRET` must be). */
export const TEST_JWT_SECRET = 'bookshop-test-secret-0123456789-abcdefghijklmnop';

/** The admin every test bookshop is started with (the `admin` option, as `ADMIN_EMAIL` + `ADMIN_PASSWORD` give it). */
export const ADMIN = {
  email: 'admin@example.com',
  password: 'admin-password-123',
  id: 1,
  iri: '/api/users/1',
} as const;

/** The password `registerAndLogin()` registers users with, unless told otherwise. */
export const PASSWORD = 'correct horse battery';

/** `Authorization: Bearer <token>`. */
export const bearer = (token: string): { authorization: string } => ({ authorization: `Bearer ${token}` });

export interface Bookshop {
  readonly app: FastifyInstance;
  /** The folder this bookshop's uploads go to (a temporary one of its own, removed when it closes). */
  readonly uploads: string;
  /** A token of the admin the bookshop was started with (`ADMIN`, user 1), issued by `app.resourceApi.issueToken`. */
  readonly adminToken: string;
  /** The table row of an item, read straight from the database (no API in between). */
  row(table: string, id: number): Promise<Record<string, unknown> | undefined>;
}

export interface OpenOptions {
  /** Token lifetime in seconds (the `jwtTtl` option, as `JWT_TTL` gives it). */
  readonly jwtTtl?: number;
  /** Rate limiting (the `rateLimit` option, as `rateLimitOptions(loadConfig(env).rateLimit)` gives it); default off. */
  readonly rateLimit?: BookshopOptions['rateLimit'];
  /** The in-process HTTP cache (`HTTP_CACHE`); default off. */
  readonly httpCache?: BookshopOptions['httpCache'];
}

/**
 * Builds the bookshop on a database of its own, with `ADMIN`; `close()` drops the PostgreSQL schema (or MariaDB
 * database) and closes the app.
 */
export async function openBookshop(
  database: TestDatabase,
  options: OpenOptions = {},
): Promise<Bookshop & { close(): Promise<void> }> {
  const schema = createTestSchemaName(database);
  const uploads = mkdtempSync(join(tmpdir(), 'bookshop-uploads-'));
  const app = await buildBookshop({
    database: database.url,
    uploadsDirectory: uploads,
    ...(schema ? { databaseSchema: schema } : {}),
    jwtSecret: TEST_JWT_SECRET,
    ...(options.jwtTtl === undefined ? {} : { jwtTtl: options.jwtTtl }),
    ...(options.rateLimit === undefined ? {} : { rateLimit: options.rateLimit }),
    ...(options.httpCache === undefined ? {} : { httpCache: options.httpCache }),
    admin: { email: ADMIN.email, password: ADMIN.password },
  });
  const { knex } = app.resourceApi.database;
  const close = async () => {
    try {
      if (schema) await dropTestSchema(knex, schema);
    } finally {
      await app.close();
      rmSync(uploads, { recursive: true, force: true });
    }
  };
  try {
    const admin = await knex('user').where('email', ADMIN.email).first();
    if (!admin || Number(admin.id) !== ADMIN.id)
      throw new Error(`The admin should be user ${ADMIN.id}, found ${JSON.stringify(admin)}.`);
    const adminToken = await app.resourceApi.issueToken({ ...admin, id: Number(admin.id) });
    return { app, adminToken, uploads, row: (table, id) => knex(table).where('id', id).first(), close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** A fresh bookshop for every test of the enclosing describe. */
export function useBookshop(database: TestDatabase, options: OpenOptions = {}): () => Bookshop {
  let current: Awaited<ReturnType<typeof openBookshop>> | undefined;
  beforeEach(async () => {
    current = await openBookshop(database, options);
  });
  afterEach(async () => {
    await current?.close();
    current = undefined;
  });
  return () => {
    if (!current) throw new Error('The bookshop is only available inside a test.');
    return current;
  };
}

/** One request through `inject()`; the body parsed when it is JSON (the framework's test kit). */
export { injectJson as call, type JsonResponse } from '@resource-api/core/testing';

/** POSTs a JSON body (with `token` as the bearer, when given) and insists on 201; returns the created item. */
export async function create(
  app: FastifyInstance,
  collection: string,
  payload: Record<string, unknown>,
  token?: string,
  // biome-ignore lint/suspicious/noExplicitAny: the created item, parsed JSON read freely by the tests
): Promise<any> {
  const response = await call(app, {
    method: 'POST',
    url: `/api/${collection}`,
    payload,
    ...(token ? { headers: bearer(token) } : {}),
  });
  if (response.status !== 201) throw new Error(`POST /api/${collection} answered ${response.status}: ${response.text}`);
  return response.body;
}

/** `POST /api/auth`, insisting on 200; returns the token. */
export async function login(app: FastifyInstance, email: string, password = PASSWORD): Promise<string> {
  const response = await call(app, { method: 'POST', url: '/api/auth', payload: { email, password } });
  if (response.status !== 200)
    throw new Error(`POST /api/auth for ${email} answered ${response.status}: ${response.text}`);
  expect(typeof response.body.token).toBe('string');
  return response.body.token as string;
}

export interface TestUser {
  readonly id: number;
  /** `/api/users/<id>`. */
  readonly iri: string;
  readonly email: string;
  /** A token from `POST /api/auth`. */
  readonly token: string;
  /** `Authorization: Bearer <token>`. */
  readonly auth: { authorization: string };
}

/** Registers a user anonymously (`POST /api/users`), then logs in (`POST /api/auth`); the user and its token. */
export async function registerAndLogin(
  app: FastifyInstance,
  email: string,
  extra: Record<string, unknown> = {},
): Promise<TestUser> {
  const password = typeof extra.plainPassword === 'string' ? extra.plainPassword : PASSWORD;
  const created = await create(app, 'users', { email, plainPassword: password, ...extra });
  const token = await login(app, email, password);
  return { id: created.id, iri: created['@id'], email, token, auth: bearer(token) };
}

/** The claims of a JWT, decoded without checking it. */
export const claims = (token: string): Record<string, unknown> =>
  JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8'));

/** The roles stored in a `user` row (a JSON string on SQLite, parsed already on PostgreSQL). */
export const storedRoles = (row: Record<string, unknown> | undefined): unknown =>
  typeof row?.roles === 'string' ? JSON.parse(row.roles) : row?.roles;

export interface SharedDatabase {
  /** `database` and `databaseSchema` for `buildBookshop`, the same every time: the data outlives one app. */
  readonly options: { readonly database: string; readonly databaseSchema?: string };
  /** Removes the SQLite file or drops the PostgreSQL schema. */
  drop(): Promise<void>;
}

/** A database that several bookshops open one after the other: a temporary SQLite file, or a PostgreSQL schema. */
export function sharedDatabase(database: TestDatabase): SharedDatabase {
  if (database.name === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'bookshop-test-'));
    return {
      options: { database: `sqlite:${join(dir, 'shop.db')}` },
      drop: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  const schema = `test_${randomBytes(6).toString('hex')}`;
  return {
    options: { database: database.url, databaseSchema: schema },
    async drop() {
      const app = await buildBookshop({ database: database.url, databaseSchema: schema, jwtSecret: TEST_JWT_SECRET });
      try {
        await dropTestSchema(app.resourceApi.database.knex, schema);
      } finally {
        await app.close();
      }
    },
  };
}
