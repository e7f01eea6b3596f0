/**
 * Shared by the end-to-end tests: the databases to run on (SQLite always, PostgreSQL when it answers), a fresh
 * bookshop per test on its own database (a new in-memory SQLite, or a new PostgreSQL schema dropped afterwards), and
 * JSON requests through `inject()`.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { afterEach, beforeEach, inject } from 'vitest';
import { testDatabases, type TestDatabase } from '@resource-api/core/testing';
import { buildBookshop } from '../src/app.js';

declare module 'vitest' {
  export interface ProvidedContext {
    postgresUrl: string;
  }
}

/** SQLite, and PostgreSQL when the global setup found it reachable. */
export const databases: TestDatabase[] = testDatabases(inject('postgresUrl'));

/** A date-time as the API writes it: RFC 3339 in UTC with an explicit offset. */
export const DATETIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?\+00:00$/;

export const HYDRA_LINK = '<http://localhost:80/api/docs.jsonld>; rel="http://www.w3.org/ns/hydra/core#apiDocumentation"';
export const JSONLD = 'application/ld+json; charset=utf-8';

export interface Bookshop {
  readonly app: FastifyInstance;
  /** The table row of an item, read straight from the database (no API in between). */
  row(table: string, id: number): Promise<Record<string, unknown> | undefined>;
}

/** Builds the bookshop on a database of its own; `close()` drops the PostgreSQL schema and closes the app. */
export async function openBookshop(database: TestDatabase): Promise<Bookshop & { close(): Promise<void> }> {
  const schema = database.name === 'postgres' ? `test_${randomBytes(6).toString('hex')}` : undefined;
  const app = await buildBookshop({ database: database.url, ...(schema ? { databaseSchema: schema } : {}) });
  const { knex } = app.resourceApi.database;
  return {
    app,
    row: (table, id) => knex(table).where('id', id).first(),
    async close() {
      try {
        if (schema) await knex.raw('DROP SCHEMA IF EXISTS ?? CASCADE', [schema]);
      } finally {
        await app.close();
      }
    },
  };
}

/** A fresh bookshop for every test of the enclosing describe. */
export function useBookshop(database: TestDatabase): () => Bookshop {
  let current: Awaited<ReturnType<typeof openBookshop>> | undefined;
  beforeEach(async () => {
    current = await openBookshop(database);
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

export interface JsonResponse {
  readonly status: number;
  readonly headers: Record<string, string | string[] | number | undefined>;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly body: any;
  readonly text: string;
}

/** One request through `inject()`; the body parsed when it is JSON. */
export async function call(app: FastifyInstance, options: InjectOptions): Promise<JsonResponse> {
  const response = await app.inject(options);
  let body: unknown;
  try {
    body = response.body === '' ? undefined : JSON.parse(response.body);
  } catch {
    body = undefined;
  }
  return { status: response.statusCode, headers: response.headers, body, text: response.body };
}

/** POSTs a JSON body and insists on 201; returns the created item. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function create(app: FastifyInstance, collection: string, payload: Record<string, unknown>): Promise<any> {
  const response = await call(app, { method: 'POST', url: `/api/${collection}`, payload });
  if (response.status !== 201) throw new Error(`POST /api/${collection} answered ${response.status}: ${response.text}`);
  return response.body;
}
