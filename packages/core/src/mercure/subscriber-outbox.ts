/**
 * What the built-in hub sends its subscribers, queued by group and written to each subscriber in one piece per flush.
 *
 * Subscribers that subscribe alike (the same topic selectors, the same private ones allowed: most, since clients
 * subscribe by resource) form a group, and an update is queued once per group, not once per subscriber: publishing
 * costs the number of groups, whatever the number of subscribers. At the flush each group's frames are joined into
 * one buffer, written to every member. A subscriber with frames of its own (the history it resumes from) or that
 * joined its group after the group's first queued frame is written its own buffer: its frames, then the group's
 * from where it joined.
 *
 * A flush comes at the end of the turn of the event loop that queued something, and with an `interval` not sooner
 * than `interval` ms after the last one: a quiet hub's update leaves at once; a busy one writes each connection at
 * most once per interval instead of once per turn (a write to a socket, its system call and the stream's
 * bookkeeping, costs far more than the bytes it carries). The bytes a subscriber's connection has not taken are
 * checked at each flush: past `maxQueuedBytes` it is given up (`onSlow`) instead of written to; a group's queue that a
 * frame would take past that size is flushed first, and one that reaches it is flushed at once, so what waits for a
 * flush stays within it too.
 */

/** Where a subscriber's bytes go (the hub's `SubscriberSink`). */
export interface OutboxSink {
  write(chunk: Buffer): void;
  /** Bytes written and not yet taken by the connection. */
  queued(): number;
}

/** Subscribers sent the same frames. The hub adds and removes members; the outbox reads them at each flush. */
export interface OutboxGroup<S> {
  readonly members: ReadonlySet<S>;
}

export interface SubscriberOutbox<S extends { readonly sink: OutboxSink }, G extends OutboxGroup<S>> {
  /** Queues `frame` for every member of `group`. */
  toGroup(group: G, frame: Buffer): void;
  /**
   * Queues `frame` for `subscriber` alone (of `group`, or about to join it), before what the group is sent after.
   * Returns the bytes now queued for it alone.
   */
  toOne(subscriber: S, group: G, frame: Buffer): number;
  /** `subscriber` was added to `group`: it gets what the group is sent from now on. */
  joined(subscriber: S, group: G): void;
  /** Forgets what is queued for `subscriber` alone (it is gone). */
  left(subscriber: S): void;
  /** Writes everything queued now. */
  flush(): void;
}

export interface OutboxOptions<S> {
  /** The least milliseconds between two flushes (0: every turn that queued something). */
  readonly interval: number;
  /** The most bytes a subscriber's connection may hold untaken, with what a flush would write it. */
  readonly maxQueuedBytes: number;
  /** Called at a flush for a subscriber over `maxQueuedBytes`, instead of writing to it. */
  readonly onSlow: (subscriber: S) => void;
}

/** A group's frames since the last flush. */
interface GroupQueue {
  readonly frames: Buffer[];
  bytes: number;
}

/** A subscriber's own frames, and where in its group's queue it joined. */
interface OwnQueue<G> {
  readonly group: G;
  readonly frames: Buffer[];
  bytes: number;
  readonly from: number;
}

/** Frames as one chunk for one write (a single frame as it is: no copy). */
export const mergeFrames = (frames: readonly Buffer[], bytes?: number): Buffer =>
  frames.length === 1 ? frames[0]! : Buffer.concat(frames, bytes);

export function createSubscriberOutbox<S extends { readonly sink: OutboxSink }, G extends OutboxGroup<S>>(
  options: OutboxOptions<S>,
): SubscriberOutbox<S, G> {
  const { interval, maxQueuedBytes, onSlow } = options;
  let groups = new Map<G, GroupQueue>();
  let own = new Map<S, OwnQueue<G>>();
  let immediate: NodeJS.Immediate | undefined;
  let timeout: NodeJS.Timeout | undefined;
  let lastFlush = Number.NEGATIVE_INFINITY;

  function schedule(): void {
    if (immediate || timeout) return;
    const wait = lastFlush + interval - performance.now();
    if (wait < 1) immediate = setImmediate(flush);
    else timeout = setTimeout(flush, wait);
  }

  function deliver(subscriber: S, chunk: Buffer): void {
    if (subscriber.sink.queued() + chunk.length > maxQueuedBytes) onSlow(subscriber);
    else subscriber.sink.write(chunk);
  }

  function flush(): void {
    if (immediate) clearImmediate(immediate);
    if (timeout) clearTimeout(timeout);
    immediate = timeout = undefined;
    if (groups.size === 0 && own.size === 0) return;
    lastFlush = performance.now();
    // Taken out first: whatever is queued while the chunks are written (a write that ends a subscription) belongs to
    // the next flush.
    const flushed = groups;
    const flushedOwn = own;
    groups = new Map();
    own = new Map();
    for (const [group, queue] of flushed) {
      const chunk = mergeFrames(queue.frames, queue.bytes);
      // A member given up meanwhile leaves the set; iterating a Set while deleting from it is safe.
      for (const member of group.members) if (!flushedOwn.has(member)) deliver(member, chunk);
    }
    for (const [subscriber, queue] of flushedOwn) {
      // Gone while the groups' chunks were written (a write that ended another subscription).
      if (!queue.group.members.has(subscriber)) continue;
      const later = flushed.get(queue.group)?.frames.slice(queue.from) ?? [];
      const frames = later.length === 0 ? queue.frames : [...queue.frames, ...later];
      if (frames.length > 0) deliver(subscriber, mergeFrames(frames));
    }
  }

  function ownQueue(subscriber: S, group: G): OwnQueue<G> {
    let queue = own.get(subscriber);
    if (!queue) {
      queue = { group, frames: [], bytes: 0, from: groups.get(group)?.frames.length ?? 0 };
      own.set(subscriber, queue);
    }
    return queue;
  }

  return {
    toGroup(group, frame) {
      let queue = groups.get(group);
      // What waits would pass the limit with this frame: written first, so that no chunk a flush writes exceeds it
      // (a chunk over the limit would give up every member, however fast).
      if (queue && queue.bytes + frame.length > maxQueuedBytes) {
        flush();
        queue = undefined;
      }
      if (!queue) groups.set(group, (queue = { frames: [], bytes: 0 }));
      queue.frames.push(frame);
      queue.bytes += frame.length;
      if (queue.bytes >= maxQueuedBytes) flush();
      else schedule();
    },
    toOne(subscriber, group, frame) {
      const queue = ownQueue(subscriber, group);
      queue.frames.push(frame);
      queue.bytes += frame.length;
      schedule();
      return queue.bytes;
    },
    joined(subscriber, group) {
      // Frames queued for the group before it came are not its own: it starts after them.
      if (groups.has(group)) ownQueue(subscriber, group);
    },
    left: (subscriber) => void own.delete(subscriber),
    flush,
  };
}
