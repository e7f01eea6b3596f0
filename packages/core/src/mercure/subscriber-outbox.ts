/**
 * What the built-in hub sends its subscribers within one turn of the event loop, written to each at the turn's end
 * in one piece. Under load several writes commit in one turn (SQLite's shared commits, a burst of requests): each
 * subscriber's connection then takes one write for all of them instead of one per update, and the subscribers that
 * were sent the same updates (most: they subscribe alike) share one buffer of them, made once.
 */

/** Where a subscriber's bytes go (the hub's `SubscriberSink`). */
export interface OutboxSink {
  write(chunk: Buffer): void;
}

export interface SubscriberOutbox<S extends { readonly sink: OutboxSink }> {
  /** Queues `frame` for `subscriber` (a frame is sent to many: it is told apart by identity). */
  add(subscriber: S, frame: Buffer): void;
  /** Bytes queued for `subscriber` and not yet written. */
  pending(subscriber: S): number;
  /** Forgets what is queued for `subscriber` (it is gone). */
  drop(subscriber: S): void;
  /** Writes everything queued now. */
  flush(): void;
}

export function createSubscriberOutbox<S extends { readonly sink: OutboxSink }>(): SubscriberOutbox<S> {
  const queued = new Map<S, { frames: Buffer[]; bytes: number }>();
  /** A number per frame, to name a list of frames in the buffers shared at a flush. */
  const numbers = new WeakMap<Buffer, number>();
  let counter = 0;
  let scheduled: NodeJS.Immediate | undefined;

  function flush(): void {
    if (scheduled) clearImmediate(scheduled);
    scheduled = undefined;
    const joined = new Map<string, Buffer>();
    for (const [subscriber, { frames }] of queued) {
      let chunk: Buffer;
      if (frames.length === 1) chunk = frames[0]!;
      else {
        const key = frames.map((frame) => numbers.get(frame)).join(',');
        chunk = joined.get(key) ?? Buffer.concat(frames);
        joined.set(key, chunk);
      }
      subscriber.sink.write(chunk);
    }
    queued.clear();
  }

  return {
    add(subscriber, frame) {
      if (!numbers.has(frame)) numbers.set(frame, counter++);
      const entry = queued.get(subscriber);
      if (entry) {
        entry.frames.push(frame);
        entry.bytes += frame.length;
      } else queued.set(subscriber, { frames: [frame], bytes: frame.length });
      scheduled ??= setImmediate(flush);
    },
    pending: (subscriber) => queued.get(subscriber)?.bytes ?? 0,
    drop: (subscriber) => void queued.delete(subscriber),
    flush,
  };
}
