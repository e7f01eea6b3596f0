/**
 * The part of better-sqlite3 that the SQLite direct path (`sqlite-path.ts`) and its group commit (`group-commit.ts`)
 * use, and that the database opens (`../database.ts`): a file of its own, so the group commit does not import the
 * path that creates it.
 */

/** The part of a better-sqlite3 connection used here. */
export interface SqliteConnection {
  readonly open: boolean;
  readonly inTransaction: boolean;
  prepare(sql: string): SqliteStatement;
}

export interface SqliteStatement {
  readonly reader: boolean;
  /** It changes nothing in the database (SQLite's `sqlite3_stmt_readonly`). */
  readonly readonly: boolean;
  all(...bindings: unknown[]): unknown[];
  run(...bindings: unknown[]): unknown;
  raw(toggle: boolean): SqliteStatement;
  columns(): { readonly name: string }[];
}
