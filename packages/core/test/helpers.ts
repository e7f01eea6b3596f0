/** Helpers for the functional tests: JSON requests through inject(), and a fresh app per test on each database. */
import type { FastifyInstance, InjectOptions } from 'fastify';
import { afterEach, beforeEach } from 'vitest';
import { buildTestApp, type TestAppOptions, type TestDatabase } from '@resource-api/core/testing';

export interface JsonResponse {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  text: string;
}

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

/** A fresh app (and database) for every test of the enclosing describe. */
export function useApp(database: TestDatabase, options: Omit<TestAppOptions, 'database'>): () => FastifyInstance {
  let app: FastifyInstance | undefined;
  beforeEach(async () => {
    app = await buildTestApp({ ...options, database });
  });
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });
  return () => app!;
}
