/**
 * Transactions the database broke off to let another one through (a deadlock, or a serialization failure) are run
 * again, a bounded number of times, before the request is answered: the client sees the write succeed, not a 500.
 * The transaction was rolled back whole, so running its work again is safe as far as the database goes; work of the
 * user's inside it (a `beforeWrite` hook calling a remote service) runs again too, which the docs say.
 *
 * Each retry waits a few random milliseconds first, so that the two transactions that deadlocked do not meet again
 * at once.
 */
import type { Dialect } from '../dialects/dialect.js';
import type { Transact } from './group-transactions.js';

/** Attempts of one transaction in all (the first, and two retries). */
export const TRANSACTION_ATTEMPTS = 3;
/** The most milliseconds a retry waits, times its number. */
const JITTER_MS = 20;

/** Whether `error` (or what it wraps) is the dialect's "run this transaction again". */
function isRetryable(dialect: Dialect, error: unknown): boolean {
  for (let current = error, depth = 0; current instanceof Error && depth < 4; current = current.cause, depth++)
    if (dialect.isTransactionConflict(current)) return true;
  return false;
}

/** Runs `work` again when its attempt failed on a deadlock or serialization failure, up to `TRANSACTION_ATTEMPTS`. */
export async function runRetried<T>(dialect: Dialect, work: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (attempt >= TRANSACTION_ATTEMPTS || !isRetryable(dialect, error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * JITTER_MS * attempt));
    }
  }
}

/** `transact`, with each transaction run again on a deadlock or serialization failure (`runRetried`). */
export function createRetriedTransact(dialect: Dialect, transact: Transact): Transact {
  return (work) => runRetried(dialect, () => transact(work));
}
