/**
 * Group commit on SQLite: the single-statement writes of one turn of the event loop are committed together, in one
 * transaction, so they share one commit, which is one `fsync` of the WAL (synchronous stays FULL: every write is on
 * disk before its response). better-sqlite3 blocks while it commits, so under concurrent writes the requests that
 * arrived during one commit all reach their write in the next turn; one commit each made the disk's sync the ceiling
 * of the write rate.
 *
 * Each write runs inside its own SAVEPOINT: a write that fails (a foreign key, a unique value) is rolled back alone and
 * rejects with its own error, exactly as it would have alone; the others commit. Every write is settled only after the
 * COMMIT; if the COMMIT fails, every write of the group fails with its error and nothing of it is kept. A lone write
 * runs on its own, as before. When a knex transaction holds the connection at that moment, the writes go through knex
 * and wait for it, as every statement does.
 *
 * Each write runs in the trace context of the request that queued it, so that its statement's span (when one is
 * recorded) is that request's, not the request whose write happened to open the group.
 */
import { type Context, context as traceContext } from '@opentelemetry/api';
import type { SqliteConnection } from './sqlite-connection.js';

/** Runs one statement on the connection and returns its rows (none for a statement that returns none). */
type Execute = (connection: SqliteConnection, sql: string, bindings: readonly unknown[], method?: string) => unknown[];

interface PendingWrite {
  readonly sql: string;
  readonly bindings: readonly unknown[];
  readonly method: string | undefined;
  /** The same write, run by knex (when the connection is not free at commit time). */
  readonly viaKnex: () => Promise<unknown[]>;
  /** The trace context of the request that queued it. */
  readonly context: Context;
  readonly resolve: (rows: unknown[]) => void;
  readonly reject: (error: unknown) => void;
}

type Outcome = { readonly rows: unknown[] } | { readonly error: unknown };

const SAVEPOINT = 'resource_api_write';

export function createGroupCommit(usable: () => SqliteConnection | null, execute: Execute) {
  let pending: PendingWrite[] = [];

  const runWrite = (connection: SqliteConnection, write: PendingWrite): unknown[] =>
    traceContext.with(write.context, execute, undefined, connection, write.sql, write.bindings, write.method);

  function commitTogether(connection: SqliteConnection, batch: readonly PendingWrite[]): Outcome[] {
    const control = (sql: string) => execute(connection, sql, [], 'raw');
    control('BEGIN IMMEDIATE');
    try {
      const outcomes = batch.map((write): Outcome => {
        control(`SAVEPOINT ${SAVEPOINT}`);
        try {
          const rows = runWrite(connection, write);
          control(`RELEASE ${SAVEPOINT}`);
          return { rows };
        } catch (error) {
          control(`ROLLBACK TO ${SAVEPOINT}`);
          control(`RELEASE ${SAVEPOINT}`);
          return { error };
        }
      });
      control('COMMIT');
      return outcomes;
    } catch (error) {
      if (connection.inTransaction) control('ROLLBACK');
      throw error;
    }
  }

  function flush(): void {
    const batch = pending;
    pending = [];
    const connection = usable();
    if (!connection) {
      for (const write of batch) traceContext.with(write.context, write.viaKnex).then(write.resolve, write.reject);
      return;
    }
    let outcomes: Outcome[];
    try {
      outcomes = batch.length === 1 ? [{ rows: runWrite(connection, batch[0]!) }] : commitTogether(connection, batch);
    } catch (error) {
      outcomes = batch.map(() => ({ error }));
    }
    outcomes.forEach((outcome, index) => {
      if ('rows' in outcome) batch[index]!.resolve(outcome.rows);
      else batch[index]!.reject(outcome.error);
    });
  }

  /** Queues a compiled single-statement write for this turn's commit; resolves with its rows once committed. */
  return function write(
    sql: string,
    bindings: readonly unknown[],
    method: string | undefined,
    viaKnex: () => Promise<unknown[]>,
  ): Promise<unknown[]> {
    return new Promise((resolve, reject) => {
      pending.push({ sql, bindings, method, viaKnex, context: traceContext.active(), resolve, reject });
      // After this turn's I/O callbacks: the writes of every request read in this turn join the group.
      if (pending.length === 1) setImmediate(flush);
    });
  };
}
