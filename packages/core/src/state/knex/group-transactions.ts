/**
 * Group commit for whole transactions on SQLite: the write stage's transactions (a processor or a `beforeWrite` /
 * `afterWrite` hook of the user's) that wait for the one connection run one after the other inside a shared
 * transaction, each in its own SAVEPOINT, and share its COMMIT: one disk sync for all of them instead of one each,
 * which made a write with a hook several times slower than one without (`group-commit.ts` does the same for the
 * single-statement writes).
 *
 * The units arrive together because the reads before a write (an IRI's check, a Unique) do not wait for the open
 * transaction: they go to the read-only connection meanwhile (`sqlite-path.ts`).
 *
 * Each unit keeps the guarantees of a transaction of its own: it runs alone on the connection (SQLite has one), sees
 * the units committed before it, and a throw rolls back its savepoint only, rejecting with its error while the others
 * commit. Its promise resolves only after the shared COMMIT; if the COMMIT fails, every unit of the group rejects with
 * that error and nothing of it is kept. A lone unit is a transaction like any other.
 */
import type { Knex } from 'knex';

const SAVEPOINT = 'resource_api_unit';

/** How many units share one commit at most: bounds the wait of the first one under a steady stream of writes. */
const MAX_UNITS = 64;

interface Unit {
  readonly work: (trx: Knex.Transaction) => Promise<unknown>;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
}

export type Transact = <T>(work: (trx: Knex.Transaction) => Promise<T>) => Promise<T>;

/**
 * `direct`: runs a statement straight on the single better-sqlite3 connection, through its cache of prepared
 * statements, when the shared transaction holds it (false otherwise): the savepoints are set that way (a synchronous
 * call, while the transaction owns the connection between its awaits) rather than as knex queries, each a fresh
 * `prepare`. `held`: holds the shared transaction while it is open, so the statement runner runs the units'
 * statements built on it straight on the connection too (`sqlite-path.ts`).
 */
export function createGroupTransactions(knex: Knex, direct: (sql: string) => boolean, held: WeakSet<Knex>): Transact {
  const control = (outer: Knex.Transaction, sql: string): Promise<unknown> | void => {
    if (!direct(sql)) return outer.raw(sql);
  };

  const queue: Unit[] = [];
  let running = false;

  /** One shared transaction: units from the queue, each in a savepoint, until it is empty or the group is full. */
  async function runGroup(): Promise<void> {
    const done: { unit: Unit; value: unknown }[] = [];
    let taken = 0;

    async function runUnits(outer: Knex.Transaction): Promise<void> {
      while (taken < MAX_UNITS) {
        // better-sqlite3 answers at once, so a unit runs to its end without letting another request in: before the
        // COMMIT, one turn of the event loop lets the writes of the requests read meanwhile join the group.
        if (queue.length === 0) await new Promise((resolve) => setImmediate(resolve));
        if (queue.length === 0) break;
        const unit = queue.shift()!;
        taken++;
        // A savepoint of our own rather than a nested knex transaction (a costly object per unit): the unit gets the
        // shared transaction, which it alone uses until it settles.
        await control(outer, `SAVEPOINT ${SAVEPOINT}`);
        try {
          const value = await unit.work(outer);
          await control(outer, `RELEASE ${SAVEPOINT}`);
          done.push({ unit, value });
        } catch (error) {
          // Rolled back to its savepoint: nothing of it is kept, and the group goes on.
          await control(outer, `ROLLBACK TO ${SAVEPOINT}`);
          await control(outer, `RELEASE ${SAVEPOINT}`);
          unit.reject(error);
        }
      }
    }

    try {
      await knex.transaction(async (outer) => {
        held.add(outer);
        try {
          await runUnits(outer);
        } finally {
          held.delete(outer);
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
