/**
 * A scratch database of the same kind as the target, thrown away after use: an in-memory SQLite, a schema of its
 * own in the PostgreSQL database, or a database of its own on the MariaDB (or MySQL) server (dropped after).
 * `migrations:generate` replays the existing migrations into one and diffs that, so a development database that schema
 * sync already brought up to date hides no change.
 */
import { randomBytes } from 'node:crypto';
import type { Database } from '@resource-api/core';
import { type DatabaseTarget, withDatabase } from './database-options.js';

export const isPostgres = (url: string): boolean => /^postgres(ql)?:\/\//.test(url);
/** MariaDB or MySQL, where a schema is a database. */
export const isMysql = (url: string): boolean => /^(mysql|mariadb):\/\//.test(url);

export async function withScratchDatabase<T>(
  target: DatabaseTarget,
  verbose: boolean,
  work: (scratch: Database) => Promise<T>,
): Promise<T> {
  const onServer = isPostgres(target.url) || isMysql(target.url);
  const schema = onServer ? `resource_api_scratch_${randomBytes(6).toString('hex')}` : undefined;
  return withDatabase(
    schema ? { url: target.url, schema } : { url: 'sqlite::memory:', schema: undefined },
    verbose,
    async (scratch) => {
      try {
        return await work(scratch);
      } finally {
        if (schema)
          await scratch.knex.raw(
            isMysql(target.url) ? 'DROP DATABASE IF EXISTS ??' : 'DROP SCHEMA IF EXISTS ?? CASCADE',
            [schema],
          );
      }
    },
  );
}
