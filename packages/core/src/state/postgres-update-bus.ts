/**
 * The update bus on PostgreSQL: `LISTEN/NOTIFY` on a channel of the app's database and schema, so that the instances
 * of one app hand each other their updates through the database itself, with nothing else to run. A message is sent
 * as one statement (`pg_notify`, in pieces when it is longer than NOTIFY's 8,000 bytes: the notifications of one
 * statement reach every listener together and in order, never mixed with another's) and delivered by each instance's
 * own listening connection — a connection of its own, outside the pool, opened again when it breaks (what was sent
 * meanwhile is not delivered to that instance).
 */
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { toBusChannel } from '../mercure/bus-channel.js';
import type { BusMessage, UpdateBus } from '../mercure/update-bus.js';
import type { Database } from './database.js';

/** The characters of a message per notification: 6 bytes each at worst once JSON-escaped, under the 8,000 allowed. */
const PIECE = 1200;
/** Milliseconds before the listening connection is opened again after it broke. */
const RECONNECT_DELAY = 1_000;
/** Messages whose pieces may be arriving at once; an incomplete one past this many is dropped. */
const MAX_PARTIAL = 1_000;

/** One notification: piece `i` of the `n` of message `k`. */
interface Piece {
  readonly k: string;
  readonly i: number;
  readonly n: number;
  readonly p: string;
}

/** The listening connection, as pg's client is. */
interface ListeningConnection {
  query(sql: string): Promise<unknown>;
  on(event: 'notification' | 'error' | 'end', listener: (value: never) => void): void;
}

export interface PostgresUpdateBusOptions {
  readonly database: Database;
  /** The schema the app's tables are in (each app's channel is its own); undefined: the connection's search path. */
  readonly schema: string | undefined;
  readonly log: { error(object: unknown, message?: string): void; warn(object: unknown, message?: string): void };
}

/** Opens the listening connection (the bus delivers from then on). */
export async function createPostgresUpdateBus(options: PostgresUpdateBusOptions): Promise<UpdateBus> {
  const { database, log } = options;
  const client = database.knex.client as Knex.Client & {
    acquireRawConnection(): Promise<ListeningConnection>;
    destroyRawConnection(connection: ListeningConnection): Promise<void>;
  };
  const channel = toBusChannel(options.schema);
  let deliver: (message: BusMessage) => void = () => {};
  let connection: ListeningConnection | undefined;
  let closed = false;
  let retry: NodeJS.Timeout | undefined;
  const partial = new Map<string, string[]>();

  function receive(payload: string | undefined): void {
    if (payload === undefined) return;
    let piece: Piece;
    try {
      piece = JSON.parse(payload) as Piece;
    } catch (error) {
      log.warn({ err: error }, 'A notification of the Mercure channel is not a message of the bus; ignored.');
      return;
    }
    let pieces = piece.n === 1 ? [piece.p] : partial.get(piece.k);
    if (!pieces) {
      if (partial.size >= MAX_PARTIAL) partial.delete(partial.keys().next().value!);
      partial.set(piece.k, (pieces = []));
    }
    if (piece.n > 1) pieces[piece.i] = piece.p;
    if (pieces.filter((part) => part !== undefined).length < piece.n) return;
    partial.delete(piece.k);
    try {
      deliver(JSON.parse(pieces.join('')) as BusMessage);
    } catch (error) {
      log.error({ err: error }, 'A message of the Mercure bus could not be delivered.');
    }
  }

  async function listen(): Promise<void> {
    const opened = await client.acquireRawConnection();
    opened.on('notification', (message: { channel: string; payload?: string }) => {
      if (message.channel === channel) receive(message.payload);
    });
    const broke = (error?: Error): void => {
      if (closed || connection !== opened) return;
      connection = undefined;
      log.error({ err: error }, 'The Mercure bus lost its PostgreSQL connection; listening again in a second.');
      retry = setTimeout(() => void listen().catch((again: unknown) => broke(again as Error)), RECONNECT_DELAY);
    };
    opened.on('error', broke);
    opened.on('end', broke);
    await opened.query(`LISTEN "${channel.replace(/"/g, '""')}"`);
    // Named apart from the pool's connections (`pg_stat_activity`): the pool keeps to its maximum, this one is extra.
    await opened.query(
      "SELECT set_config('application_name', left(current_setting('application_name') || ' mercure', 63), false)",
    );
    connection = opened;
  }
  await listen();

  return {
    async send(message) {
      const text = JSON.stringify(message);
      const key = randomUUID();
      const count = Math.max(1, Math.ceil(text.length / PIECE));
      const pieces: string[] = [];
      for (let index = 0; index < count; index++)
        pieces.push(JSON.stringify({ k: key, i: index, n: count, p: text.slice(index * PIECE, (index + 1) * PIECE) }));
      await database.knex.raw(
        `select ${pieces.map(() => 'pg_notify(?, ?)').join(', ')}`,
        pieces.flatMap((piece) => [channel, piece]),
      );
    },
    deliverTo(target) {
      deliver = target;
    },
    async close() {
      closed = true;
      if (retry) clearTimeout(retry);
      const open = connection;
      connection = undefined;
      if (open) await client.destroyRawConnection(open).catch(() => undefined);
    },
  };
}
