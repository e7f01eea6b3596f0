/** SQLite through better-sqlite3: booleans as 0/1, date-times as ISO 8601 text in UTC (so they sort), JSON as text. */
import type { Dialect } from './dialect.js';
import { escapeLike, toLikePattern, toDbValue } from './dialect.js';

/** GLOB is SQLite's case-sensitive matching; `*`, `?` and `[` are made literal by a one-character class. */
const escapeGlob = (value: string): string => value.replace(/[*?[]/g, '[$&]');

/** What SQLite's `lower()` does without ICU: A-Z only. */
const asciiLower = (value: string): string => value.replace(/[A-Z]+/g, (letters) => letters.toLowerCase());

const code = (error: unknown): string | undefined => (error as { code?: string } | null)?.code;

export const sqliteDialect: Dialect = {
  name: 'sqlite',
  returning: true,
  nullsClause: true,
  inlineForeignKeys: true,
  toDb(type, value) {
    if (value === null || value === undefined) return null;
    if (type === 'boolean') return value ? 1 : 0;
    if (type === 'datetime') return (value as Date).toISOString();
    return toDbValue(type, value);
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
      case 'file':
        return JSON.parse(value as string);
      default:
        return value;
    }
  },
  isForeignKeyViolation: (error) =>
    code(error) === 'SQLITE_CONSTRAINT_FOREIGNKEY' ||
    (code(error) === 'SQLITE_CONSTRAINT_TRIGGER' && /FOREIGN KEY/.test((error as Error).message)),
  isUniqueViolation: (error) =>
    code(error) === 'SQLITE_CONSTRAINT_UNIQUE' || code(error) === 'SQLITE_CONSTRAINT_PRIMARYKEY',
  isIndexRowTooLarge: () => false,
  // One writer at a time: no deadlock; a lock held too long is SQLITE_BUSY, answered as unavailable.
  isTransactionConflict: () => false,
  // Another process (a backup, a migration, a second server) holds the file's lock longer than the busy timeout.
  isUnavailable: (error) => code(error)?.startsWith('SQLITE_BUSY') ?? false,
  // SQLite's LIKE already ignores case, for ASCII only, as `lower()` would: case-insensitive matching covers A-Z.
  // Plain `column LIKE ?` also lets the planner read the column from an index and skips two calls per row.
  // The FTS5 table holds the text lowered A-Z only, as `lower()` and LIKE fold case (see sqlite-schema.ts): a phrase
  // query for the value lowered the same way finds exactly the rows a case-insensitive `contains` finds (`%` and `_`
  // are literal in both), and a superset of any other strategy's, which `match` then narrows. The trigrams need 3
  // characters. MATCH reads the index alone; the table's LIKE would also read every candidate's text.
  substringCondition(idColumn, index, { value, anchor, caseSensitive }) {
    if ([...value].length < 3) return undefined;
    const phrase = `"${asciiLower(value).replace(/"/g, '""')}"`;
    return {
      sql: '?? IN (SELECT rowid FROM ?? WHERE ?? MATCH ?)',
      bindings: [idColumn, index, index, phrase],
      exact: anchor === 'contains' && !caseSensitive,
      value: phrase,
    };
  },
  substringMatches: (index, value) => ({ sql: '?? MATCH ?', bindings: [index, value] }),
  match(column, { value, anchor, caseSensitive }) {
    if (anchor === 'exact') {
      return caseSensitive
        ? { sql: '?? = ?', bindings: [column, value] }
        : { sql: 'lower(??) = lower(?)', bindings: [column, value] };
    }
    // A pattern given as a bare parameter makes SQLite plan the statement for the value bound (its LIKE optimization
    // reads an index for a prefix), so binding it expires the plan and every run prepares the statement again (its
    // cost: docs/performance.md). `CAST(? AS TEXT)` is the same text,
    // computed once per run, and keeps the plan. Only a case-sensitive prefix (GLOB 'abc*') can use the optimization
    // (LIKE ignores case and the columns' collation is BINARY), so it alone stays a bare parameter.
    if (caseSensitive) {
      const pattern = toLikePattern(escapeGlob(value), anchor, '*');
      return { sql: anchor === 'start' ? '?? GLOB ?' : '?? GLOB CAST(? AS TEXT)', bindings: [column, pattern] };
    }
    return { sql: "?? LIKE CAST(? AS TEXT) ESCAPE '\\'", bindings: [column, toLikePattern(escapeLike(value), anchor)] };
  },
};
