/**
 * The update bus on PostgreSQL: `LISTEN/NOTIFY` on a channel of the app's database and schema, so that the instances
 * of one app hand each other their updates through the database itself, with nothing else to run, in the order of
 * commits. A write takes its place inside its transaction (`reserve`: a notification, delivered only if the write
 * commits, in commit order); once committed and rendered, its messages follow (one statement: the notifications of
 * one statement reach every listener together and in order). Each instance's listening connection (its own, outside
 * the pool, opened again when it breaks; what was sent meanwhile is not delivered to that instance) delivers every
 * write's messages in its place (`mercure/commit-order.ts`). Messages too long for a notification (8,000 bytes)
 * travel without the data of their items' updates: each instance reads the item by id and renders it; what is still
 * too long (many items, an update of another publisher) is cut into several notifications of that one statement.
 */
import { randomUUID } from 'node:crypto';
import { toBusChannel } from '../mercure/bus-channel.js';
import { readBusMessages } from '../mercure/bus-message.js';
import { createCommitOrder } from '../mercure/commit-order.js';
import type { BusMessage, UpdateBus } from '../mercure/update-bus.js';
import type { Database } from './database.js';
import { openPostgresListener } from './postgres-listener.js';

/** The most bytes of one notification's payload we send (PostgreSQL takes up to 7,999). */
const NOTIFICATION_BYTES = 7_900;
/** The characters of a piece of a long text: 6 bytes each at worst once JSON-escaped, under the bytes allowed. */
const PIECE = 1_200;
/** Milliseconds a committed write's place waits for its messages before it is given up (its instance stopped). */
const PLACE_TIMEOUT = 10_000;
/** Writes whose messages may be arriving at once; an incomplete one past this many is dropped. */
const MAX_PARTIAL = 1_000;

/** A notification: a write's place (`t`), or piece `i` of the `n` of the JSON of the messages of the write at `k`. */
type Notification =
  | { readonly t: string }
  | { readonly k: string; readonly i: number; readonly n: number; readonly p: string };

export interface PostgresUpdateBusOptions {
  readonly database: Database;
  /** The schema the app's tables are in (each app's channel is its own); undefined: the connection's search path. */
  readonly schema: string | undefined;
  readonly log: { error(object: unknown, message?: string): void; warn(object: unknown, message?: string): void };
  /** Milliseconds a committed write's place waits for its messages (default 10 s; shorter in tests). */
  readonly placeTimeout?: number;
}

/**
 * The payloads of the notifications that carry a write's messages: their JSON in one, when it fits; else without the
 * data of the largest updates an instance can render itself (of an item, with the operation rendering it), until it
 * fits; cut in pieces when that is still too long (many items, a large update of another publisher).
 */
function encode(key: string, messages: readonly BusMessage[]): string[] {
  const sent = [...messages];
  const payload = () => JSON.stringify({ k: key, i: 0, n: 1, p: JSON.stringify(sent) });
  // The largest renderable data first, until the messages fit.
  const renderable = sent
    .map((message, index) => ({
      index,
      size: message.item && message.rendering ? (message.update.data?.length ?? 0) : 0,
    }))
    .filter(({ size }) => size > 0)
    .sort((a, b) => b.size - a.size);
  let whole = payload();
  for (const { index } of renderable) {
    if (Buffer.byteLength(whole) <= NOTIFICATION_BYTES) break;
    sent[index] = withoutRenderableData(sent[index]!);
    whole = payload();
  }
  if (Buffer.byteLength(whole) <= NOTIFICATION_BYTES) return [whole];
  const text = JSON.stringify(sent);
  const count = Math.ceil(text.length / PIECE);
  const pieces: string[] = [];
  for (let index = 0; index < count; index++)
    pieces.push(JSON.stringify({ k: key, i: index, n: count, p: text.slice(index * PIECE, (index + 1) * PIECE) }));
  return pieces;
}

/** A message without its data, when each instance can render it (the item read again by id). */
function withoutRenderableData(message: BusMessage): BusMessage {
  if (!message.item || !message.rendering) return message;
  const { data: _left, ...update } = message.update;
  return { ...message, update };
}

/** Opens the listening connection (the bus delivers from then on). */
export async function createPostgresUpdateBus(options: PostgresUpdateBusOptions): Promise<UpdateBus> {
  const { database, log } = options;
  const channel = toBusChannel(options.schema);
  let deliver: (message: BusMessage) => void = () => {};
  const partial = new Map<string, string[]>();
  const order = createCommitOrder<BusMessage>({
    deliver: (message) => {
      try {
        deliver(message);
      } catch (error) {
        log.error({ err: error }, 'A message of the Mercure bus could not be delivered.');
      }
    },
    timeout: options.placeTimeout ?? PLACE_TIMEOUT,
    onLost: (key, why) =>
      log.warn(
        { place: key },
        why === 'timeout'
          ? 'The updates of a committed write did not come (its instance stopped?); the updates after it go on.'
          : 'The updates of a committed write came after its place was given up; dropped.',
      ),
  });

  function receive(payload: string | undefined): void {
    if (payload === undefined) return;
    let notification: Notification;
    try {
      notification = JSON.parse(payload) as Notification;
    } catch (error) {
      log.warn({ err: error }, 'A notification of the Mercure channel is not a message of the bus; ignored.');
      return;
    }
    if ('t' in notification) {
      order.placed(notification.t);
      return;
    }
    const { k: key, n: count } = notification;
    let pieces = count === 1 ? [notification.p] : partial.get(key);
    if (!pieces) {
      if (partial.size >= MAX_PARTIAL) partial.delete(partial.keys().next().value!);
      partial.set(key, (pieces = []));
    }
    if (count > 1) pieces[notification.i] = notification.p;
    if (pieces.filter((piece) => piece !== undefined).length < count) return;
    partial.delete(key);
    let messages: BusMessage[];
    try {
      messages = readBusMessages(pieces.join(''));
    } catch (error) {
      log.warn({ err: error }, 'The messages of a write on the Mercure channel are not messages of the bus; ignored.');
      messages = [];
    }
    order.arrived(key, messages);
  }

  const listener = await openPostgresListener({
    database,
    channel,
    name: 'mercure',
    onNotification: receive,
    log: {
      error: (object, message) =>
        log.error(object, `${message ?? ''} Updates sent meanwhile do not reach this instance.`),
    },
  });

  return {
    async reserve(transaction) {
      const key = randomUUID();
      await transaction.raw('select pg_notify(?, ?)', [channel, JSON.stringify({ t: key })]);
      return key;
    },
    async send(messages, place) {
      const payloads = encode(place ?? randomUUID(), messages);
      await database.knex.raw(
        `select ${payloads.map(() => 'pg_notify(?, ?)').join(', ')}`,
        payloads.flatMap((payload) => [channel, payload]),
      );
    },
    deliverTo(target) {
      deliver = target;
    },
    async close() {
      order.close();
      await listener.close();
    },
  };
}
