/**
 * Makes the WAL record the database's size at open, so that reads do not ask the file system for it.
 *
 * A read transaction on a file in WAL mode needs the database's size in pages. When the WAL has recorded a commit
 * since the file was opened, its index holds that size; until then (a fresh start, before any write) SQLite reads the
 * file's size with an `fstat` at every read transaction, and each statement run alone is one: a system call, a large
 * part of an item read's time in SQLite (docs/performance.md). One commit at open that changes
 * nothing (`user_version` set to the value it has, in a transaction that holds the write lock, so no other process's
 * change can be lost) puts the size in the index, where it stays while any connection of any process has the file
 * open, and every later commit keeps it up to date.
 */
import type { SqliteConnection } from './sqlite-connection.js';

/**
 * Commits a change to nothing on a connection to a file in WAL mode (see the file's comment). When it cannot (another
 * process holds the write lock past the busy timeout), it gives up: that costs the reads their speed only.
 */
export function writeWalDatabaseSize(connection: SqliteConnection): boolean {
  try {
    connection.prepare('BEGIN IMMEDIATE').run();
    const [row] = connection.prepare('PRAGMA user_version').all() as { user_version: number }[];
    connection.prepare(`PRAGMA user_version = ${Number(row?.user_version ?? 0)}`).run();
    connection.prepare('COMMIT').run();
    return true;
  } catch {
    if (connection.inTransaction) connection.prepare('ROLLBACK').run();
    return false;
  }
}
