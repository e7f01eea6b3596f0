/**
 * Delivery in the order of commits, for a bus whose writes take their place inside their transaction (PostgreSQL:
 * a notification sent in a transaction is delivered when, and only if, it commits, in the order of commits). A write
 * takes a place (`placed`), commits, then renders its updates and sends them (`arrived`): they are delivered once
 * every place before theirs was. A place whose updates do not come within `timeout` milliseconds (its instance
 * stopped between its commit and its send) is given up, so that one lost writer holds the others back for a while,
 * never for ever; updates that come after their place was given up are dropped, as delivering them after later ones
 * would show a subscriber an older version last.
 */

export interface CommitOrder<T> {
  /** A write committed: its updates are delivered in this place. */
  placed(key: string): void;
  /** The updates of a write (none: it has nothing to publish). Without a place seen, they go after those before. */
  arrived(key: string, messages: readonly T[]): void;
  /** Stops the timer; what is held is dropped. */
  close(): void;
}

export interface CommitOrderOptions<T> {
  readonly deliver: (message: T) => void;
  /** Milliseconds a place waits for its updates before it is given up. */
  readonly timeout: number;
  /** Told of each place given up, and of updates dropped for coming after theirs was. */
  readonly onLost: (key: string, why: 'timeout' | 'late') => void;
}

/** Places given up, remembered so that their late updates are recognised (and dropped); at most this many. */
const GIVEN_UP = 1_000;

export function createCommitOrder<T>(options: CommitOrderOptions<T>): CommitOrder<T> {
  const { deliver, timeout, onLost } = options;
  /** The places not delivered yet, in commit order. */
  const places: string[] = [];
  const waiting = new Set<string>();
  const ready = new Map<string, readonly T[]>();
  const givenUp = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  let timedPlace: string | undefined;

  function flush(): void {
    while (places.length > 0) {
      const head = places[0]!;
      const messages = ready.get(head);
      if (!messages) break;
      places.shift();
      waiting.delete(head);
      ready.delete(head);
      for (const message of messages) deliver(message);
    }
    arm();
  }

  /** A timer for the place at the head, when it waits. */
  function arm(): void {
    const head = places[0];
    if (head === timedPlace) return;
    if (timer) clearTimeout(timer);
    timer = undefined;
    timedPlace = head;
    if (head === undefined) return;
    timer = setTimeout(() => {
      places.shift();
      waiting.delete(head);
      remember(head);
      onLost(head, 'timeout');
      timedPlace = undefined;
      flush();
    }, timeout);
    // Waiting for a lost writer keeps no process running.
    timer.unref();
  }

  function remember(key: string): void {
    givenUp.add(key);
    if (givenUp.size > GIVEN_UP) givenUp.delete(givenUp.values().next().value!);
  }

  return {
    placed(key) {
      places.push(key);
      waiting.add(key);
      arm();
    },
    arrived(key, messages) {
      if (givenUp.has(key)) {
        givenUp.delete(key);
        onLost(key, 'late');
        return;
      }
      // No place seen (sent without one, or while this instance was not listening): after what is held.
      if (!waiting.has(key)) {
        places.push(key);
        waiting.add(key);
      }
      ready.set(key, messages);
      flush();
    },
    close() {
      if (timer) clearTimeout(timer);
      places.length = 0;
      waiting.clear();
      ready.clear();
    },
  };
}
