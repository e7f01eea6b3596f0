/**
 * How updates reach the hub of every instance. An instance's committed writes are sent on the bus; each instance
 * dispatches what the bus delivers to its own subscribers (the built-in hub, GraphQL subscriptions) — its own writes
 * included, so every subscriber of any instance receives every instance's updates once, in the order the bus
 * delivers them. Alone (SQLite, or fan-out off) the bus is this process: a send is delivered at once. On PostgreSQL
 * it is the database's `LISTEN/NOTIFY` (`state/postgres-update-bus.ts`); with `mercure.redis`, Redis pub/sub
 * (`redis-update-bus.ts`).
 */
import type { MercureUpdate } from './hub.js';

/** What travels on the bus: an update, with its id already given (the same on every instance), and its item. */
export interface BusMessage {
  readonly update: MercureUpdate & { readonly id: string };
  /** The item the update is about (GraphQL subscriptions read it again), by resource name. */
  readonly item: { readonly resource: string; readonly id: unknown; readonly deleted: boolean };
}

export interface UpdateBus {
  /** Sends one message; resolves once the bus has it (not once it was delivered). */
  send(message: BusMessage): Promise<void>;
  /** Where the messages of every instance are delivered, in the bus's order. */
  deliverTo(deliver: (message: BusMessage) => void): void;
  close(): Promise<void>;
}

/** The bus of one process: a message sent is delivered at once. */
export function createLocalBus(): UpdateBus {
  let deliver: (message: BusMessage) => void = () => {};
  return {
    async send(message) {
      deliver(message);
    },
    deliverTo(target) {
      deliver = target;
    },
    async close() {},
  };
}
