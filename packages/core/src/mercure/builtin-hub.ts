/**
 * The built-in Mercure hub, without its HTTP side (`routing/mercure-routes.ts`): the subscribers, the bounded history
 * that `Last-Event-ID` resumes from, the dispatch of each update to the subscribers allowed to see it, and heartbeats.
 *
 * Memory is bounded everywhere: an update is encoded once as a server-sent event (one buffer shared by every
 * subscriber; what one turn of the event loop sends a subscriber is written to it at once, `subscriber-outbox.ts`); a subscriber whose connection does not take what it is sent (`queued` bytes over `maxQueuedBytes`) is
 * dropped, never buffered for; the history holds at most `historySize` updates and `historyBytes` bytes; subscribers
 * beyond `maxSubscribers` are refused. A publish never waits for a subscriber.
 */
import { randomUUID } from 'node:crypto';
import type { Hub, MercureUpdate } from './hub.js';
import { createSubscriberOutbox } from './subscriber-outbox.js';
import { isAnySelected, type MatchMemo, type TopicMatcher } from './topic-selector.js';

/** The limits and intervals of the built-in hub (docs/real-time.md). */
export interface BuiltinHubLimits {
  /** The most subscribers at once; more are refused with 503 (default 10,000). */
  readonly maxSubscribers: number;
  /** The most bytes waiting to be sent to one subscriber; past it, it is dropped (default 1 MiB). */
  readonly maxQueuedBytes: number;
  /** The most updates kept for `Last-Event-ID` (default 1,000). */
  readonly historySize: number;
  /** The most bytes of updates kept for `Last-Event-ID` (default 16 MiB). */
  readonly historyBytes: number;
  /** Milliseconds between two heartbeats (a comment line) on every subscription; 0 sends none (default 40,000). */
  readonly heartbeat: number;
}

export const DEFAULT_HUB_LIMITS: BuiltinHubLimits = Object.freeze({
  maxSubscribers: 10_000,
  maxQueuedBytes: 1024 * 1024,
  historySize: 1_000,
  historyBytes: 16 * 1024 * 1024,
  heartbeat: 40_000,
});

/** Where a subscriber's events go: its connection. */
export interface SubscriberSink {
  /** Queues bytes to send. */
  write(chunk: Buffer): void;
  /** Bytes queued and not yet taken by the connection. */
  queued(): number;
  /** Ends the subscription: at once for a `slow` one (its bytes would never drain), cleanly when the hub `closes`. */
  end(why: 'slow' | 'closes'): void;
}

/** A subscription request, once its JWT is checked. */
export interface Subscription {
  /** The topic selectors of its `topic` parameters. */
  readonly topics: readonly TopicMatcher[];
  /** The selectors of its JWT's `mercure.subscribe` claim: the private updates it may receive (none: empty). */
  readonly allowed: readonly TopicMatcher[];
  /** `Last-Event-ID` (header or `lastEventID` parameter): resume after this event; `earliest` for the whole history. */
  readonly lastEventId: string | undefined;
  readonly sink: SubscriberSink;
}

/** An update as the hub holds it: encoded once. */
interface HeldUpdate {
  readonly id: string;
  readonly topics: readonly string[];
  readonly private: boolean;
  readonly frame: Buffer;
}

export interface BuiltinHub extends Hub {
  /**
   * Adds a subscriber: the held updates after its `Last-Event-ID` it may see are written to it first. Returns the id
   * of the last update held before it (`earliest` when none), for the response's `Last-Event-ID` header, and the
   * function that removes it; null when the hub holds as many subscribers as it may.
   */
  subscribe(subscription: Subscription): { lastEventId: string; unsubscribe: () => void } | null;
  /** The subscribers now connected. */
  readonly subscribers: number;
}

/** The SSE event of an update: `id`, `event`, `retry`, then one `data` line per line of the data, and a blank line. */
export function encodeEvent(update: MercureUpdate & { readonly id: string }): Buffer {
  let text = `id: ${update.id}\n`;
  if (update.type !== undefined) text += `event: ${update.type}\n`;
  if (update.retry !== undefined) text += `retry: ${update.retry}\n`;
  for (const line of update.data.split(/\r\n|\r|\n/)) text += `data: ${line}\n`;
  return Buffer.from(`${text}\n`);
}

/** A comment line: keeps proxies from closing an idle connection, and finds dead ones (their bytes pile up). */
const HEARTBEAT = Buffer.from(':\n\n');

export function createBuiltinHub(limits: BuiltinHubLimits = DEFAULT_HUB_LIMITS): BuiltinHub {
  const subscribers = new Set<Subscription>();
  const outbox = createSubscriberOutbox<Subscription>();
  const history: HeldUpdate[] = [];
  let historyBytes = 0;

  /** `memo`: the selectors' answers for this update, shared by its subscribers (most subscribe with the same ones). */
  const mayReceive = (subscription: Subscription, update: HeldUpdate, memo: MatchMemo = new Map()): boolean =>
    isAnySelected(subscription.topics, update.topics, memo) &&
    (!update.private || isAnySelected(subscription.allowed, update.topics, memo));

  /** Sends, or drops the subscriber whose connection stopped taking bytes (a slow or dead client). */
  function send(subscription: Subscription, chunk: Buffer): boolean {
    if (subscription.sink.queued() + outbox.pending(subscription) + chunk.length > limits.maxQueuedBytes) {
      subscribers.delete(subscription);
      outbox.drop(subscription);
      subscription.sink.end('slow');
      return false;
    }
    outbox.add(subscription, chunk);
    return true;
  }

  function hold(update: HeldUpdate): void {
    if (limits.historySize === 0) return;
    history.push(update);
    historyBytes += update.frame.length;
    while (history.length > limits.historySize || (historyBytes > limits.historyBytes && history.length > 0))
      historyBytes -= history.shift()!.frame.length;
  }

  const heartbeat =
    limits.heartbeat > 0
      ? setInterval(() => {
          for (const subscription of subscribers) send(subscription, HEARTBEAT);
        }, limits.heartbeat)
      : undefined;
  // A hub alone keeps no process running.
  heartbeat?.unref();

  return {
    get subscribers() {
      return subscribers.size;
    },
    async publish(update) {
      const id = update.id ?? `urn:uuid:${randomUUID()}`;
      const held: HeldUpdate = {
        id,
        topics: update.topics,
        private: update.private,
        frame: encodeEvent({ ...update, id }),
      };
      hold(held);
      const memo: MatchMemo = new Map();
      for (const subscription of subscribers) if (mayReceive(subscription, held, memo)) send(subscription, held.frame);
      return id;
    },
    subscribe(subscription) {
      if (subscribers.size >= limits.maxSubscribers) return null;
      const last = history.length > 0 ? history[history.length - 1]!.id : 'earliest';
      const { lastEventId } = subscription;
      if (lastEventId !== undefined) {
        // After the one named (an id no longer held, or never seen, resumes nothing: its place is unknown).
        const from = lastEventId === 'earliest' ? 0 : history.findIndex((held) => held.id === lastEventId) + 1;
        if (from > 0 || lastEventId === 'earliest')
          // More to resume than the connection may queue: dropped, as it would be later (the client retries).
          for (const held of history.slice(from))
            if (mayReceive(subscription, held) && !send(subscription, held.frame))
              return { lastEventId: last, unsubscribe: () => {} };
      }
      subscribers.add(subscription);
      return {
        lastEventId: last,
        unsubscribe: () => {
          subscribers.delete(subscription);
          outbox.drop(subscription);
        },
      };
    },
    async close() {
      if (heartbeat) clearInterval(heartbeat);
      // What was sent before the close still reaches its subscribers.
      outbox.flush();
      for (const subscription of subscribers) subscription.sink.end('closes');
      subscribers.clear();
    },
  };
}
