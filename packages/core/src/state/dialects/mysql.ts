/**
 * MariaDB (and MySQL) through mysql2: booleans as TINYINT(1) 0/1, date-times as DATETIME(3) in UTC (the connection's
 * time zone is `Z`, see `database.ts`), dates kept as `YYYY-MM-DD` strings, JSON as text (MariaDB's JSON is LONGTEXT;
 * kept as text on MySQL too, so the bytes read back are the bytes written, key order included).
 *
 * Text compares by the binary collation without trailing-space padding (`BINARY_COLLATION`), whatever the column's
 * own collation: `partial` is case-sensitive and `ipartial` is not, as on SQLite and PostgreSQL. The tables made here
 * use that collation too, so uniqueness and ordering follow the code points as well.
 */
import type { Dialect } from './dialect.js';
import { escapeLike, toLikePattern, toDbValue } from './dialect.js';
import { SOCKET_UNAVAILABLE_CODES } from './socket-errors.js';

/** MariaDB's binary, NO PAD collation: `'a' = 'a '` is false, as on the other databases. */
export const BINARY_COLLATION = 'utf8mb4_nopad_bin';

const errno = (error: unknown): number | undefined => (error as { errno?: number } | null)?.errno;
const code = (error: unknown): string | undefined => (error as { code?: string } | null)?.code;

/** ER_DUP_ENTRY, and ER_DUP_ENTRY_WITH_KEY_NAME. */
const DUPLICATE = new Set([1062, 1586]);
/** ER_NO_REFERENCED_ROW(_2): the row referred to is gone; ER_ROW_IS_REFERENCED(_2): the row is still referred to. */
const FOREIGN_KEY = new Set([1216, 1217, 1451, 1452]);

/**
 * Connection-level failures: the socket's, ER_CON_COUNT_ERROR (1040, too many connections), ER_SERVER_SHUTDOWN
 * (1053), server gone away / lost (2006, 2013), and mysql2's own names for a connection it lost or closed.
 */
const UNAVAILABLE_CODES: ReadonlySet<string> = new Set([
  ...SOCKET_UNAVAILABLE_CODES,
  'PROTOCOL_CONNECTION_LOST',
  'ER_CON_COUNT_ERROR',
  'ER_SERVER_SHUTDOWN',
]);
const UNAVAILABLE_ERRNOS: ReadonlySet<number> = new Set([1040, 1053, 2006, 2013]);
const UNAVAILABLE_MESSAGE = /Can't add new command when connection is in closed state|connection is in closed state/;

export function isMysqlUnavailable(error: unknown): boolean {
  const found = code(error);
  if (found !== undefined && UNAVAILABLE_CODES.has(found)) return true;
  const number = errno(error);
  if (number !== undefined && UNAVAILABLE_ERRNOS.has(number)) return true;
  return error instanceof Error && UNAVAILABLE_MESSAGE.test(error.message);
}

/** In MariaDB's string literals a backslash escapes: `'\\\\'` is the one backslash the escaped patterns use. */
const ESCAPE = "ESCAPE '\\\\'";

export const mysqlDialect: Dialect = {
  name: 'mysql',
  returning: false,
  nullsClause: false,
  inlineForeignKeys: false,
  toDb(type, value) {
    if (value === null || value === undefined) return null;
    if (type === 'boolean') return value ? 1 : 0;
    // DATETIME's own text, in UTC: mysql2 would write a Date of a year before 1000 wrong.
    if (type === 'datetime') return (value as Date).toISOString().replace('T', ' ').replace('Z', '');
    return toDbValue(type, value);
  },
  fromDb(type, value) {
    if (value === null || value === undefined) return null;
    switch (type) {
      case 'boolean':
        return value === 1 || value === true;
      case 'datetime':
        // Read as text (`dateStrings` in mysql-database.ts), the instant in UTC: `0001-01-01 00:00:00.000`.
        return typeof value === 'string' ? new Date(`${value.replace(' ', 'T')}Z`) : value;
      case 'json':
      case 'string[]':
      case 'file':
        // MySQL's JSON columns come back parsed; the LONGTEXT ones made here, as text.
        return typeof value === 'string' ? JSON.parse(value) : value;
      default:
        return value;
    }
  },
  isForeignKeyViolation: (error) => FOREIGN_KEY.has(errno(error) ?? 0),
  isUniqueViolation: (error) => DUPLICATE.has(errno(error) ?? 0),
  // ER_LOCK_DEADLOCK (1213): InnoDB chose this transaction to roll back. Not ER_LOCK_WAIT_TIMEOUT (1205): waiting that
  // long again would not help.
  isTransactionConflict: (error) => errno(error) === 1213,
  // ER_TOO_LONG_KEY (1071) comes at CREATE INDEX, not on a write: text columns are indexed by a prefix
  // (mysql-schema.ts).
  isIndexRowTooLarge: () => false,
  isUnavailable: isMysqlUnavailable,
  match(column, { value, anchor, caseSensitive }) {
    // `lower()` on both sides and the binary collation: case folded by Unicode rules, nothing else folded (accents
    // stay apart, as with PostgreSQL's ILIKE), whatever collation the column was made with.
    const target = caseSensitive ? '??' : 'lower(??)';
    const bound = caseSensitive ? '?' : 'lower(?)';
    if (anchor === 'exact')
      return { sql: `${target} = ${bound} collate ${BINARY_COLLATION}`, bindings: [column, value] };
    return {
      sql: `${target} like ${bound} collate ${BINARY_COLLATION} ${ESCAPE}`,
      bindings: [column, toLikePattern(escapeLike(value), anchor)],
    };
  },
};
