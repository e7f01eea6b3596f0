/** SQLite through better-sqlite3: booleans as 0/1, date-times as ISO 8601 text in UTC (so they sort), JSON as text. */
import type { Dialect } from './dialect.js';
import { escapeLike, likePattern, sharedToDb } from './dialect.js';

/** GLOB is SQLite's case-sensitive matching; `*`, `?` and `[` are made literal by a one-character class. */
const escapeGlob = (value: string): string => value.replace(/[*?[]/g, '[$&]');

const code = (error: unknown): string | undefined => (error as { code?: string } | null)?.code;

export const sqliteDialect: Dialect = {
  name: 'sqlite',
  inlineForeignKeys: true,
  toDb(type, value) {
    if (value === null || value === undefined) return null;
    if (type === 'boolean') return value ? 1 : 0;
    if (type === 'datetime') return (value as Date).toISOString();
    return sharedToDb(type, value);
  },
  fromDb(type, value) {
    if (value === null || value === undefined) return null;
    switch (type) {
      case 'boolean':
        return value === 1 || value === true;
      case 'datetime':
        return new Date(value as string);
      case 'json':
      case 'string[]':
        return JSON.parse(value as string);
      default:
        return value;
    }
  },
  isForeignKeyViolation: (error) =>
    code(error) === 'SQLITE_CONSTRAINT_FOREIGNKEY' ||
    (code(error) === 'SQLITE_CONSTRAINT_TRIGGER' && /FOREIGN KEY/.test((error as Error).message)),
  isUniqueViolation: (error) => code(error) === 'SQLITE_CONSTRAINT_UNIQUE' || code(error) === 'SQLITE_CONSTRAINT_PRIMARYKEY',
  isIndexRowTooLarge: () => false,
  // SQLite's LIKE already ignores case, for ASCII only, as `lower()` would: case-insensitive matching covers A-Z.
  // Plain `column LIKE ?` also lets the planner read the column from an index and skips two calls per row.
  // The FTS5 trigram table's own LIKE (case-insensitive, `%` and `_` as wildcards) finds a superset of what any
  // strategy matches, through the index when the value has 3 characters in a row without a wildcard.
  substringPrefilter(idColumn, index, column, value) {
    if (!/[^%_]{3}/u.test(value)) return undefined;
    return { sql: '?? IN (SELECT rowid FROM ?? WHERE ?? LIKE ?)', bindings: [idColumn, index, column, `%${value}%`] };
  },
  match(column, { value, anchor, caseSensitive }) {
    if (anchor === 'exact') {
      return caseSensitive ? { sql: '?? = ?', bindings: [column, value] } : { sql: 'lower(??) = lower(?)', bindings: [column, value] };
    }
    if (caseSensitive) return { sql: '?? GLOB ?', bindings: [column, likePattern(escapeGlob(value), anchor, '*')] };
    return { sql: "?? LIKE ? ESCAPE '\\'", bindings: [column, likePattern(escapeLike(value), anchor)] };
  },
};
