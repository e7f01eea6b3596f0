/**
 * The read lock of a SQLite file, held for the app's reads by a connection of its own.
 *
 * Each statement run alone is a read transaction of its own, and SQLite takes and drops a shared lock for it on the
 * WAL's index (the `-shm` file): two `fcntl` system calls, most of a one-row read's cost (docs/performance.md). POSIX
 * locks belong to the process, and SQLite counts them per file within it: while one of the process's connections holds
 * a shared lock, another connection's shared lock on the same byte is a count, not a system call. So while the app
 * reads, a read-only connection that serves nothing else (the holder) keeps a read transaction open, and the app's
 * reads skip those calls.
 *
 * What a read sees does not change: each of the app's statements is still its own transaction and starts from the
 * last commit, the holder's or not. The holder's transaction only pins the WAL's frames as of its start, as any
 * reader does. So it lets go before each write of the app (a commit then checkpoints as far as it would have, and
 * its snapshot would no longer share a lock with reads that start after the write), whenever knex asks for the main
 * connection (knex's writes, transactions and schema changes), and at the latest `HOLD_MS` after it took the lock
 * (another process's commits). The next read takes it again.
 */
import type { Knex } from 'knex';
import type { SqliteConnection, SqliteStatement } from './sqlite-connection.js';

/** How long the holder keeps one read transaction at most, in milliseconds: a checkpoint waits no longer for it. */
const HOLD_MS = 100;

export interface HeldReadLock {
  /** Before a read of the app: the holder takes the read lock, when it does not hold it. */
  hold(): void;
  /** Before anything else (a write): the holder lets go. */
  release(): void;
}

/** The pool's events, as tarn (knex's pool) emits them. */
interface PoolEvents {
  on(event: 'acquireRequest', listener: () => void): void;
}

export function createHeldReadLock(knex: Knex, holderOf: () => SqliteConnection | null): HeldReadLock {
  let held: SqliteConnection | null = null;
  let timer: NodeJS.Timeout | undefined;
  const statements = new WeakMap<
    SqliteConnection,
    { begin: SqliteStatement; read: SqliteStatement; end: SqliteStatement }
  >();

  function release(): void {
    const holder = held;
    if (holder === null) return;
    held = null;
    clearTimeout(timer);
    if (holder.open && holder.inTransaction) statements.get(holder)!.end.run();
  }

  (knex.client as { pool?: PoolEvents }).pool?.on('acquireRequest', release);

  return {
    hold() {
      if (held !== null) return;
      const holder = holderOf();
      if (!holder?.open || holder.inTransaction) return;
      let prepared = statements.get(holder);
      if (!prepared) {
        prepared = {
          begin: holder.prepare('BEGIN'),
          // Any read of the file takes the lock; the schema's first page is always there.
          read: holder.prepare('SELECT 1 FROM sqlite_master LIMIT 1'),
          end: holder.prepare('COMMIT'),
        };
        statements.set(holder, prepared);
      }
      try {
        prepared.begin.run();
        prepared.read.all();
      } catch {
        // Not holding the lock costs speed only: the reads take their own.
        if (holder.open && holder.inTransaction) prepared.end.run();
        return;
      }
      held = holder;
      timer = setTimeout(release, HOLD_MS);
      timer.unref();
    },
    release,
  };
}
