/**
 * A scratch database of the same kind as the target, thrown away after use: an in-memory SQLite, or a schema of its
 * own in the PostgreSQL database (dropped after). `migrations:generate` replays the existing migrations into one and
 * diffs that, so a development database that schema sync already brought up to date hides no change.
 */
import { randomBytes } from 'node:crypto';
import type { Database } from '@resource-api/core';
import { type DatabaseTarget, withDatabase } from './database-options.js';

export const isPostgres = (url: string): boolean => /^postgres(ql)?:\/\//.test(url);

export async function withScratchDatabase<T>(
  target: DatabaseTarget,
  verbose: boolean,
  work: (scratch: Database) => Promise<T>,
): Promise<T> {
  const schema = isPostgres(target.url) ? `resource_api_scratch_${randomBytes(6).toString('hex')}` : undefined;
  return withDatabase(
    schema ? { url: target.url, schema } : { url: 'sqlite::memory:', schema: undefined },
    verbose,
    async (scratch) => {
      try {
        return await work(scratch);
      } finally {
        if (schema) await scratch.knex.raw('DROP SCHEMA IF EXISTS ?? CASCADE', [schema]);
      }
    },
  );
}
