/**
 * The built-in Mercure hub, without its HTTP side (`routing/mercure-routes.ts`): the subscribers, the bounded history
 * that `Last-Event-ID` resumes from, the dispatch of each update to the subscribers allowed to see it, and heartbeats.
 *
 * Memory is bounded everywhere: an update is encoded once as a server-sent event (one buffer shared by every
 * subscriber; what a subscriber is sent within `writeInterval` ms is written to it at once, `subscriber-outbox.ts`); a
 * subscriber whose connection does not take what it is sent (`queued` bytes over `maxQueuedBytes`) is dropped, never
 * buffered for; the history holds at most `historySize` updates and `historyBytes` bytes, and a subscriber resuming
 * more of it than half of what it may queue gets it in parts (`history-replay.ts`); subscribers beyond
 * `maxSubscribers` are refused. A publish never waits for a subscriber.
 */
import { randomUUID } from 'node:crypto';
import type { Hub, MercureUpdate } from './hub.js';
import { type HistoryReplay, sendHistory } from './history-replay.js';
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
  /**
   * The least milliseconds between two writes to a subscriber's connection: updates that come sooner leave together
   * (default 0: at the end of every turn of the event loop that sent something).
   */
  readonly writeInterval: number;
}

export const DEFAULT_HUB_LIMITS: BuiltinHubLimits = Object.freeze({
  maxSubscribers: 10_000,
  maxQueuedBytes: 1024 * 1024,
  historySize: 1_000,
  historyBytes: 16 * 1024 * 1024,
  heartbeat: 40_000,
  writeInterval: 0,
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

/** Subscribers that subscribe alike: the same topic selectors and the same allowed ones, so sent the same updates. */
interface Group {
  /** The ids of its selectors (`selectorKey`): the hub's key of it. */
  readonly key: string;
  readonly topics: readonly TopicMatcher[];
  readonly allowed: readonly TopicMatcher[];
  readonly members: Set<Subscription>;
}

/** A number per selector (each is compiled once per text, so the same text is mostly the same function). */
const selectorIds = new WeakMap<TopicMatcher, number>();
let lastSelectorId = 0;

function selectorKey(selectors: readonly TopicMatcher[]): string {
  const ids = selectors.map((selector) => {
    let id = selectorIds.get(selector);
    if (id === undefined) selectorIds.set(selector, (id = ++lastSelectorId));
    return id;
  });
  return ids.sort((a, b) => a - b).join(',');
}

export function createBuiltinHub(limits: BuiltinHubLimits = DEFAULT_HUB_LIMITS): BuiltinHub {
  const groups = new Map<string, Group>();
  const groupOf = new Map<Subscription, Group>();
  const outbox = createSubscriberOutbox<Subscription, Group>({
    interval: limits.writeInterval,
    maxQueuedBytes: limits.maxQueuedBytes,
    // A connection that stopped taking bytes (a slow or dead client): dropped, never buffered for.
    onSlow: (subscription) => {
      remove(subscription);
      subscription.sink.end('slow');
    },
  });
  /** Subscribers resuming more history than half of what they may queue: in no group until it is written. */
  const replays = new Map<Subscription, HistoryReplay>();
  const history: HeldUpdate[] = [];
  let historyBytes = 0;

  /** Whether a group's (or a subscriber's) selectors take `update`; `memo`: their answers for it, shared. */
  const mayReceive = (
    selectors: Pick<Group, 'topics' | 'allowed'>,
    update: HeldUpdate,
    memo: MatchMemo = new Map(),
  ): boolean =>
    isAnySelected(selectors.topics, update.topics, memo) &&
    (!update.private || isAnySelected(selectors.allowed, update.topics, memo));

  /** The held updates after `Last-Event-ID`: all for `earliest`; none for an id not held (its place is unknown). */
  function heldAfter(lastEventId: string | undefined): readonly HeldUpdate[] {
    if (lastEventId === undefined) return [];
    if (lastEventId === 'earliest') return history;
    const index = history.findIndex((held) => held.id === lastEventId);
    return index < 0 ? [] : history.slice(index + 1);
  }

  /** Adds a subscriber to its group: it gets what the group is sent from now on. */
  function join(subscription: Subscription): void {
    const group = groupFor(subscription);
    group.members.add(subscription);
    groupOf.set(subscription, group);
    outbox.joined(subscription, group);
  }

  function remove(subscription: Subscription): void {
    const replay = replays.get(subscription);
    if (replay) {
      replay.cancel();
      replays.delete(subscription);
      return;
    }
    const group = groupOf.get(subscription);
    if (!group) return;
    groupOf.delete(subscription);
    group.members.delete(subscription);
    outbox.left(subscription);
    // An empty group is dropped: the next subscriber alike makes a new one.
    if (group.members.size === 0 && groups.get(group.key) === group) groups.delete(group.key);
  }

  function groupFor(subscription: Subscription): Group {
    const key = `${selectorKey(subscription.topics)}|${selectorKey(subscription.allowed)}`;
    let group = groups.get(key);
    if (!group) {
      group = { key, topics: subscription.topics, allowed: subscription.allowed, members: new Set() };
      groups.set(key, group);
    }
    return group;
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
          for (const group of groups.values()) outbox.toGroup(group, HEARTBEAT);
        }, limits.heartbeat)
      : undefined;
  // A hub alone keeps no process running.
  heartbeat?.unref();

  return {
    get subscribers() {
      return groupOf.size + replays.size;
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
      for (const group of groups.values()) if (mayReceive(group, held, memo)) outbox.toGroup(group, held.frame);
      for (const [subscription, replay] of replays) if (mayReceive(subscription, held, memo)) replay.add(held.frame);
      return id;
    },
    subscribe(subscription) {
      if (groupOf.size + replays.size >= limits.maxSubscribers) return null;
      const last = history.length > 0 ? history[history.length - 1]!.id : 'earliest';
      const resumed = heldAfter(subscription.lastEventId).filter((held) => mayReceive(subscription, held));
      const bytes = resumed.reduce((sum, held) => sum + held.frame.length, 0);
      // Up to half of what it may queue goes with its first write; more is written in parts, so that the group's
      // updates of the same turn never take that first write past the limit.
      if (bytes <= limits.maxQueuedBytes / 2) {
        const group = groupFor(subscription);
        for (const held of resumed) outbox.toOne(subscription, group, held.frame);
        join(subscription);
      } else
        replays.set(
          subscription,
          sendHistory({
            sink: subscription.sink,
            frames: resumed.map((held) => held.frame),
            maxQueuedBytes: limits.maxQueuedBytes,
            // What it resumes, and as much again published meanwhile.
            maxPendingBytes: 2 * bytes,
            onDone: () => {
              replays.delete(subscription);
              join(subscription);
            },
            onSlow: () => {
              replays.delete(subscription);
              subscription.sink.end('slow');
            },
          }),
        );
      return { lastEventId: last, unsubscribe: () => remove(subscription) };
    },
    async close() {
      if (heartbeat) clearInterval(heartbeat);
      // What was sent before the close still reaches its subscribers.
      outbox.flush();
      for (const replay of replays.values()) replay.cancel();
      for (const subscription of [...groupOf.keys(), ...replays.keys()]) subscription.sink.end('closes');
      groupOf.clear();
      replays.clear();
      groups.clear();
    },
  };
}
