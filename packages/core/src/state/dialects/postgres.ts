/**
 * PostgreSQL through pg: timestamptz and jsonb columns, dates kept as `YYYY-MM-DD` strings (pg would turn them into
 * local-midnight Date objects), counts parsed from bigint.
 */
import type pg from 'pg';
import { importOptionalPackage } from '../../optional-package.js';
import type { Dialect } from './dialect.js';
import { escapeLike, toLikePattern, toDbValue } from './dialect.js';
import { SOCKET_UNAVAILABLE_CODES } from './socket-errors.js';

const code = (error: unknown): string | undefined => (error as { code?: string } | null)?.code;

/**
 * Connection-level failures: the socket's (the server is down, restarting, unreachable), SQLSTATE class 08 (connection
 * exception), 57P01-03 (admin or crash shutdown, "the database system is starting up / shutting down") and 53300 (too
 * many connections). pg names a connection it lost or timed out without a code: "Connection terminated unexpectedly",
 * "Connection terminated due to connection timeout", "Client has encountered a connection error and is not queryable".
 */
const UNAVAILABLE_CODES: ReadonlySet<string> = new Set([
  ...SOCKET_UNAVAILABLE_CODES,
  '57P01',
  '57P02',
  '57P03',
  '53300',
]);
// Unanchored: knex puts the statement before the driver's message (`select … - Connection terminated unexpectedly`).
const UNAVAILABLE_MESSAGE = /Connection terminated|is not queryable/;

const DATE_OID = 1082;
const INT8_OID = 20;

/**
 * Per-connection type parsers, so the process-wide defaults of pg stay untouched for other users of it. pg is loaded
 * here, when a PostgreSQL database is opened, not at start: an app on SQLite never pays its memory
 * (docs/performance.md, "What made it faster"), and need not install it (an optional peer dependency).
 */
export async function loadPostgresTypes(): Promise<pg.CustomTypesConfig> {
  const { default: driver } = await importOptionalPackage('pg', 'A PostgreSQL database', () => import('pg'));
  return {
    getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
      if (oid === DATE_OID) return (value: string) => value;
      // count(*) is a bigint; our counts and ids stay far below 2^53.
      if (oid === INT8_OID) return (value: string) => Number(value);
      return driver.types.getTypeParser(oid, format);
    }) as pg.CustomTypesConfig['getTypeParser'],
  };
}

export const postgresDialect: Dialect = {
  name: 'postgres',
  returning: true,
  nullsClause: true,
  inlineForeignKeys: false,
  toDb: toDbValue,
  fromDb(_type, value) {
    return value ?? null;
  },
  isForeignKeyViolation: (error) => code(error) === '23503',
  isUniqueViolation: (error) => code(error) === '23505',
  // serialization_failure (also CockroachDB's "restart transaction"), deadlock_detected.
  isTransactionConflict: (error) => code(error) === '40001' || code(error) === '40P01',
  // 54000, program_limit_exceeded: "index row size 3016 exceeds btree version 4 maximum 2704 for index ...".
  isIndexRowTooLarge: (error) => code(error) === '54000' && /index row/i.test((error as Error).message),
  isUnavailable(error) {
    const found = code(error);
    if (found !== undefined && (UNAVAILABLE_CODES.has(found) || found.startsWith('08'))) return true;
    return error instanceof Error && UNAVAILABLE_MESSAGE.test(error.message);
  },
  match(column, { value, anchor, caseSensitive }) {
    if (anchor === 'exact') {
      return caseSensitive
        ? { sql: '?? = ?', bindings: [column, value] }
        : { sql: 'lower(??) = lower(?)', bindings: [column, value] };
    }
    return {
      sql: `?? ${caseSensitive ? 'LIKE' : 'ILIKE'} ? ESCAPE '\\'`,
      bindings: [column, toLikePattern(escapeLike(value), anchor)],
    };
  },
};
