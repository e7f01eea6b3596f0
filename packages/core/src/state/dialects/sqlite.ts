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
  // Another process (a backup, a migration, a second server) holds the file's lock longer than the busy timeout.
  isUnavailable: (error) => code(error)?.startsWith('SQLITE_BUSY') ?? false,
  // SQLite's LIKE already ignores case, for ASCII only, as `lower()` would: case-insensitive matching covers A-Z.
  // Plain `column LIKE ?` also lets the planner read the column from an index and skips two calls per row.
  // A phrase query on the FTS5 trigram table finds the rows holding the value as a substring, ignoring case (Unicode
  // folding): a superset of what any strategy matches (`%` and `_` are literal in both). The trigrams need 3
  // characters. MATCH reads the index alone; the table's LIKE would also read every candidate's text (twice as slow).
  substringPrefilter(idColumn, index, _column, value) {
    if ([...value].length < 3) return undefined;
    return { sql: '?? IN (SELECT rowid FROM ?? WHERE ?? MATCH ?)', bindings: [idColumn, index, index, `"${value.replace(/"/g, '""')}"`] };
  },
  match(column, { value, anchor, caseSensitive }) {
    if (anchor === 'exact') {
      return caseSensitive ? { sql: '?? = ?', bindings: [column, value] } : { sql: 'lower(??) = lower(?)', bindings: [column, value] };
    }
    if (caseSensitive) return { sql: '?? GLOB ?', bindings: [column, likePattern(escapeGlob(value), anchor, '*')] };
    return { sql: "?? LIKE ? ESCAPE '\\'", bindings: [column, likePattern(escapeLike(value), anchor)] };
  },
};
