/**
 * What differs between the databases, and nothing else: how a value of each field type is stored and read back,
 * whether foreign keys can be declared inside CREATE TABLE, and how constraint violations are recognized.
 */
import type { MatchPattern } from '../../metadata/conditions.js';
import type { ScalarType } from '../../metadata/declared.js';

export type DialectName = 'sqlite' | 'postgres' | 'mysql';

export interface Dialect {
  readonly name: DialectName;
  /**
   * INSERT, UPDATE and DELETE take RETURNING (SQLite, PostgreSQL). Without it (MariaDB and MySQL: knex leaves it out),
   * a write answers its id or its count of rows, and the item is read back.
   */
  readonly returning: boolean;
  /** ORDER BY takes NULLS FIRST / LAST (SQLite, PostgreSQL); without it, an `is null` term goes first. */
  readonly nullsClause: boolean;
  /** SQLite accepts REFERENCES to tables not created yet; PostgreSQL needs them added once all tables exist. */
  readonly inlineForeignKeys: boolean;
  /** Turns a JS value (see `Entity`) into what the driver binds. */
  toDb(type: ScalarType, value: unknown): unknown;
  /** Turns what the driver returns into the JS value. */
  fromDb(type: ScalarType, value: unknown): unknown;
  isForeignKeyViolation(error: unknown): boolean;
  isUniqueViolation(error: unknown): boolean;
  /**
   * The database rolled the transaction back to let another one through: a deadlock, or a serialization failure.
   * Run again, it may well succeed (`knex/retried-transaction.ts`).
   */
  isTransactionConflict(error: unknown): boolean;
  /**
   * The value is too large for an index on its column (PostgreSQL's btree rows hold about 2.7 kB; SQLite has no limit).
   */
  isIndexRowTooLarge(error: unknown): boolean;
  /**
   * The database cannot serve the statement now, and may again soon: the server refuses connections, is shutting down
   * or starting up, dropped the connection, or the file is locked by another process. Answered with a 503.
   */
  isUnavailable(error: unknown): boolean;
  /** SQL for a pattern condition on a column (`??` binds the column, `?` the values), with `%` and `_` literal. */
  match(column: string, pattern: MatchPattern): { sql: string; bindings: readonly string[] };
  /**
   * A condition on a column's trigram index for `pattern`: `exact` when it finds exactly the matching rows (then it
   * replaces `match`), else a superset of them that `match` still narrows. Undefined when the database uses the index
   * for `match` by itself (PostgreSQL's pg_trgm) or when the value has no run of 3 characters for the index to look up.
   * `value` is what the index is searched for, as `substringMatches` takes it.
   */
  substringCondition?(idColumn: string, index: string, pattern: MatchPattern): SubstringCondition | undefined;
  /**
   * The condition on a trigram index's own table that selects the rows it finds for a `value` of
   * `substringCondition`: counting them reads the index alone.
   */
  substringMatches?(index: string, value: string): { sql: string; bindings: readonly string[] };
}

export interface SubstringCondition {
  readonly sql: string;
  readonly bindings: readonly string[];
  readonly exact: boolean;
  readonly value: string;
}

/** Escapes LIKE wildcards so that `%` and `_` in a value match themselves (with `ESCAPE '\\'`). */
export const escapeLike = (value: string): string => value.replace(/[\\%_]/g, '\\$&');

/** Wraps an escaped value for its anchor: `%v%`, `v%`, `%v`. */
export function toLikePattern(value: string, anchor: MatchPattern['anchor'], wildcard = '%'): string {
  if (anchor === 'start') return `${value}${wildcard}`;
  if (anchor === 'end') return `${wildcard}${value}`;
  return `${wildcard}${value}${wildcard}`;
}

/** The conversions both dialects share; each dialect overrides only what its driver does differently. */
export function toDbValue(type: ScalarType, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (type === 'json' || type === 'string[]' || type === 'file') return JSON.stringify(value);
  return value;
}
