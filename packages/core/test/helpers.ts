/** Helpers for the functional tests: JSON requests through inject(), and a fresh app per test on each database. */
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach } from 'vitest';
import { buildTestApp, type TestAppOptions, type TestDatabase } from '@resource-api/core/testing';

/** JSON requests through inject(): the test kit's `injectJson`. */
export { injectJson as call, type JsonResponse } from '@resource-api/core/testing';

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
