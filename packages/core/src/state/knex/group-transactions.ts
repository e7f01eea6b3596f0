/**
 * Group commit for whole transactions on SQLite: the write stage's transactions (a processor or a `beforeWrite` /
 * `afterWrite` hook of the user's) that wait for the one connection run one after the other inside a shared
 * transaction, each in its own SAVEPOINT, and share its COMMIT: one disk sync for all of them instead of one each,
 * which made a write with a hook several times slower than one without (`group-commit.ts` does the same for the
 * single-statement writes).
 *
 * Each unit keeps the guarantees of a transaction of its own: it runs alone on the connection (SQLite has one), sees
 * the units committed before it, and a throw rolls back its savepoint only, rejecting with its error while the others
 * commit. Its promise resolves only after the shared COMMIT; if the COMMIT fails, every unit of the group rejects with
 * that error and nothing of it is kept. A lone unit is a transaction like any other.
 */
import type { Knex } from 'knex';

/** How many units share one commit at most: bounds the wait of the first one under a steady stream of writes. */
const MAX_UNITS = 64;

interface Unit {
  readonly work: (trx: Knex.Transaction) => Promise<unknown>;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
}

export type Transact = <T>(work: (trx: Knex.Transaction) => Promise<T>) => Promise<T>;

export function createGroupTransactions(knex: Knex): Transact {
  const queue: Unit[] = [];
  let running = false;

  /** One shared transaction: units from the queue, each in a savepoint, until it is empty or the group is full. */
  async function runGroup(): Promise<void> {
    const done: { unit: Unit; value: unknown }[] = [];
    let taken = 0;
    try {
      await knex.transaction(async (outer) => {
        while (queue.length > 0 && taken < MAX_UNITS) {
          const unit = queue.shift()!;
          taken++;
          try {
            done.push({ unit, value: await outer.transaction((savepoint) => unit.work(savepoint)) });
          } catch (error) {
            // Rolled back to its savepoint: nothing of it is kept, and the group goes on.
            unit.reject(error);
          }
        }
      });
    } catch (error) {
      for (const { unit } of done) unit.reject(error);
      // The shared transaction could not even begin (the database is unavailable): the waiting units fail with it,
      // as their own transactions would have, rather than wait for another attempt.
      if (taken === 0) for (const unit of queue.splice(0)) unit.reject(error);
      return;
    }
    for (const { unit, value } of done) unit.resolve(value);
  }

  async function drain(): Promise<void> {
    running = true;
    try {
      while (queue.length > 0) await runGroup();
    } finally {
      running = false;
    }
  }

  return <T>(work: (trx: Knex.Transaction) => Promise<T>) =>
    new Promise<T>((resolve, reject) => {
      queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
      if (!running) void drain();
    });
}
