/**
 * What the built-in hub sends its subscribers within one turn of the event loop, written to each at the turn's end
 * in one piece. Under load several writes commit in one turn (SQLite's shared commits, a burst of requests): each
 * subscriber's connection then takes one write for all of them instead of one per update, and the subscribers that
 * were sent the same updates (most: they subscribe alike) share one buffer of them, made once.
 *
 * What a subscriber was sent this turn is a place in a tree of frames: each place is the frames sent so far, the
 * root none. A frame sent to a subscriber moves it to the child of its place for that frame, made by the first
 * subscriber that gets there and reused by the others. So an update sent to a hundred subscribers that were sent the
 * same before allocates one place, not a hundred lists: the hub holds nothing per subscriber and frame, and the
 * garbage collector has that much less to copy while a turn lasts.
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

/** The frames a subscriber was sent this turn: `frame` after those of `parent`. */
interface Place {
  readonly parent: Place | null;
  readonly frame: Buffer | null;
  /** The bytes of every frame from the root to here. */
  readonly bytes: number;
  /** The child made last: the next subscriber at this place is most likely sent the same frame. */
  next: Place | null;
  /** The frames from the root to here in one buffer, made at the flush by the first subscriber at this place. */
  chunk: Buffer | null;
}

const newRoot = (): Place => ({ parent: null, frame: null, bytes: 0, next: null, chunk: null });

/** The frames from the root to `place`, in one buffer. */
function chunkOf(place: Place): Buffer {
  if (place.chunk) return place.chunk;
  if (place.parent?.frame === null) return (place.chunk = place.frame as Buffer);
  const frames: Buffer[] = [];
  for (let at: Place | null = place; at?.frame; at = at.parent) frames.push(at.frame);
  return (place.chunk = Buffer.concat(frames.reverse(), place.bytes));
}

export function createSubscriberOutbox<S extends { readonly sink: OutboxSink }>(): SubscriberOutbox<S> {
  const queued = new Map<S, Place>();
  let root = newRoot();
  let scheduled: NodeJS.Immediate | undefined;

  function flush(): void {
    if (scheduled) clearImmediate(scheduled);
    scheduled = undefined;
    // A new tree for the next turn: the places of this one are garbage once their chunks are written.
    root = newRoot();
    // Taken out first: whatever is queued while the chunks are written (a write that ends a subscription) belongs to
    // the next turn.
    const places = [...queued];
    queued.clear();
    for (const [subscriber, place] of places) subscriber.sink.write(chunkOf(place));
  }

  return {
    add(subscriber, frame) {
      const place = queued.get(subscriber) ?? root;
      let next = place.next;
      if (next?.frame !== frame) {
        next = { parent: place, frame, bytes: place.bytes + frame.length, next: null, chunk: null };
        place.next = next;
      }
      queued.set(subscriber, next);
      scheduled ??= setImmediate(flush);
    },
    pending: (subscriber) => queued.get(subscriber)?.bytes ?? 0,
    drop: (subscriber) => void queued.delete(subscriber),
    flush,
  };
}
