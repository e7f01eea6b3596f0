/**
 * The in-process HTTP cache (`httpCache: { store: 'memory' }`): whole responses (status, headers, body) in a map
 * bounded by bytes, each indexed under its cache tags, purged by tag. When full, the least recently used go first,
 * as the "second chance" (CLOCK) algorithm approximates it: a hit only marks its entry used; eviction walks from the
 * oldest, moving a used entry to the newest end (unmarked) and dropping the first unused one. A hit does not move its
 * entry itself: deleting and setting one key again and again leaves a chain of deleted slots in V8's Map that every
 * later lookup of that key walks (a hot key's lookup grew to tens of microseconds in a 10,000-entry map).
 *
 * Never stale: a response rendered while a write was committing may show the older state. So each purge advances the
 * app's purge clock (`purge-clock.ts`), a request notes its count when it starts, and its response is stored only if
 * no purge happened since: whatever a write purged cannot come back from a read that overlapped it.
 */
import type { PurgeClock } from './purge-clock.js';

/** One response kept. */
export interface CachedResponse {
  readonly status: number;
  /** Lower-case names; without `Link` (the API scope adds it per origin) and `Content-Length`. */
  readonly headers: Readonly<Record<string, string>>;
  /** The bytes as sent: a hit hands them to the socket as they are (no encoding, no length to count). */
  readonly body: Buffer;
  /**
   * With hits answered before the app (`answerHits: 'beforeApp'`): every header a hit sends but `Age`, as the flat
   * name, value, name, value… list Node's `writeHead` takes — `headers`, with `Link`, what the request's own hooks had
   * set but its request id and rate-limit counts, `X-Cache: HIT` and `Content-Length`.
   */
  readonly frontHead?: readonly string[];
  readonly tags: readonly string[];
  /** The request headers it varies on beyond the key (`cacheHeaders.vary`), with their values then. */
  readonly varies: Readonly<Record<string, string | undefined>>;
  /** `Date.now()` when stored, and when it stops being fresh. */
  readonly storedAt: number;
  readonly expiresAt: number;
}

export interface MemoryStore {
  /** The fresh response under `key`, or undefined; a hit marks it used (it outlives an unused one). */
  find(key: string, now: number): CachedResponse | undefined;
  /** Keeps `entry` under `key`, unless the purge clock moved since `since` (its count at the request's start). */
  add(key: string, entry: CachedResponse, since: number): void;
  /**
   * Removes every response listing one of `tags`; null: every response. It advances the purge clock itself, so no
   * purge can leave a read under way free to store what it rendered (a caller that purges more than this store
   * advances the clock too, before: one purge may count twice, which only makes reads more careful).
   */
  purge(tags: Iterable<string> | null): void;
  /**
   * Off (`false`): everything goes, and nothing is found or kept until it is on again — while the purges of other
   * instances may be missed (their channel is down). On by default.
   */
  use(on: boolean): void;
  /** Bytes kept, and responses kept. */
  readonly size: { readonly bytes: number; readonly entries: number };
  /** Responses found since the store was made (hits, wherever they were answered). */
  readonly hits: number;
}

/** Rough bytes of an entry: its body, and its key and headers as UTF-16 (what the strings hold). */
const bytesOf = (key: string, entry: CachedResponse): number =>
  entry.body.length +
  2 *
    (key.length +
      Object.entries(entry.headers).reduce((n, [k, v]) => n + k.length + v.length, 0) +
      (entry.frontHead ?? []).reduce((n, text) => n + text.length, 0));

export function createMemoryStore(maxBytes: number, clock: PurgeClock): MemoryStore {
  // A Map iterates in insertion order: the first is the oldest; `used`, set by a hit, gives it a second chance.
  const entries = new Map<string, { entry: CachedResponse; bytes: number; used: boolean }>();
  const byTag = new Map<string, Set<string>>();
  let bytes = 0;
  let hits = 0;
  let on = true;

  function remove(key: string): void {
    const kept = entries.get(key);
    if (!kept) return;
    entries.delete(key);
    bytes -= kept.bytes;
    for (const tag of kept.entry.tags) {
      const keys = byTag.get(tag);
      keys?.delete(key);
      if (keys?.size === 0) byTag.delete(tag);
    }
  }

  /** Drops the oldest entry not used since it was last passed over; used ones go to the newest end, unmarked. */
  function evictOne(): void {
    for (const [key, kept] of entries) {
      if (!kept.used) {
        remove(key);
        return;
      }
      kept.used = false;
      entries.delete(key);
      entries.set(key, kept);
    }
  }

  function purge(tags: Iterable<string> | null): void {
    clock.advance();
    if (tags === null) {
      entries.clear();
      byTag.clear();
      bytes = 0;
    } else for (const tag of tags) for (const key of [...(byTag.get(tag) ?? [])]) remove(key);
  }

  return {
    get size() {
      return { bytes, entries: entries.size };
    },
    get hits() {
      return hits;
    },
    find(key, now) {
      if (!on) return undefined;
      const kept = entries.get(key);
      if (!kept) return undefined;
      if (kept.entry.expiresAt <= now) {
        remove(key);
        return undefined;
      }
      kept.used = true;
      hits++;
      return kept.entry;
    },
    add(key, entry, since) {
      if (since !== clock.now || !on) return;
      const size = bytesOf(key, entry);
      if (size > maxBytes) return;
      remove(key);
      // Room first: the new entry is not a candidate of its own eviction.
      while (bytes + size > maxBytes) evictOne();
      entries.set(key, { entry, bytes: size, used: false });
      bytes += size;
      for (const tag of entry.tags) {
        let keys = byTag.get(tag);
        if (!keys) byTag.set(tag, (keys = new Set()));
        keys.add(key);
      }
    },
    purge,
    use(value) {
      if (!value) purge(null);
      on = value;
    },
  };
}
