/**
 * Whether an error means "the database cannot serve requests now, try again soon": the answer is a 503 with
 * Retry-After instead of a 500, and the client neither waits nor blames its request. Knex's pool gives up acquiring
 * a connection after `acquireConnectionTimeout` (every connection busy, or none can be made in time) on either
 * database; the drivers' own signs are each dialect's `isUnavailable`. The cause chain is followed, since a wrapper
 * (a transaction, an ApiError with `cause`) may hold the driver's error.
 */
import { isMysqlUnavailable } from './mysql.js';
import { postgresDialect } from './postgres.js';
import { sqliteDialect } from './sqlite.js';

/** Seconds a client should wait before retrying, sent as `Retry-After`: about what a database restart takes. */
export const UNAVAILABLE_RETRY_AFTER = 5;

const isPoolTimeout = (error: unknown): boolean => error instanceof Error && error.name === 'KnexTimeoutError';

export function isDatabaseUnavailable(error: unknown): boolean {
  for (let current = error, depth = 0; current instanceof Error && depth < 4; current = current.cause, depth++) {
    if (
      isPoolTimeout(current) ||
      postgresDialect.isUnavailable(current) ||
      sqliteDialect.isUnavailable(current) ||
      isMysqlUnavailable(current)
    )
      return true;
  }
  return false;
}
