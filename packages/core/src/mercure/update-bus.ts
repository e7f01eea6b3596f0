/**
 * How updates reach the hub of every instance. An instance's committed writes are sent on the bus; each instance
 * dispatches what the bus delivers to its own subscribers (the built-in hub, GraphQL subscriptions) — its own writes
 * included, so every subscriber of any instance receives every instance's updates once, in the order the bus
 * delivers them. Alone (SQLite, or fan-out off) the bus is this process: a send is delivered at once. On PostgreSQL
 * it is the database's `LISTEN/NOTIFY` (`state/postgres-update-bus.ts`), in the order of commits; with
 * `mercure.redis`, Redis pub/sub (`redis-update-bus.ts`).
 */
import type { Knex } from 'knex';
import type { MercureUpdate } from './hub.js';

/**
 * What travels on the bus: an update, with its id already given (the same on every instance), and the item it is
 * about — none for an update of another publisher (the built-in hub's publish endpoint).
 */
export interface BusMessage {
  /** The update; without `data` when it was too large for the bus: each instance renders it (`rendering`). */
  readonly update: Omit<MercureUpdate, 'data'> & { readonly id: string; readonly data?: string };
  /** The item the update is about (GraphQL subscriptions read it again), by resource name. */
  readonly item?: { readonly resource: string; readonly id: unknown; readonly deleted: boolean };
  /** The operation (of the item's resource, or the write's own) whose rendering `data` is: its resource and name. */
  readonly rendering?: { readonly resource: string; readonly operation: string };
}

export interface UpdateBus {
  /**
   * Takes a write's place in the order of commits, inside its transaction (the bus delivers its messages in that
   * place); returns the place's key, given to `send`. Absent: the bus delivers in the order of the sends.
   */
  readonly reserve?: (transaction: Knex.Transaction) => Promise<string>;
  /** Sends one write's messages, in order (none: it has nothing to publish); resolves once the bus has them. */
  send(messages: readonly BusMessage[], place?: string): Promise<void>;
  /** Where the messages of every instance are delivered, in the bus's order. */
  deliverTo(deliver: (message: BusMessage) => void): void;
  close(): Promise<void>;
}

/** The bus of one process: a message sent is delivered at once. */
export function createLocalBus(): UpdateBus {
  let deliver: (message: BusMessage) => void = () => {};
  return {
    async send(messages) {
      for (const message of messages) deliver(message);
    },
    deliverTo(target) {
      deliver = target;
    },
    async close() {},
  };
}
