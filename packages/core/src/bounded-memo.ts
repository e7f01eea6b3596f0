/**
 * A memo that empties itself when full: for values worked out once from a key that is usually one of a handful (an
 * origin, an identifier, a statement's shape) but that a client can vary without end (a Host header, a filter's
 * parameters). Emptying it whole costs nothing per hit, unlike a least-recently-used order; what is asked again is
 * worked out again. The values must not be `undefined` (that reads as "not kept").
 */
export class BoundedMemo<K, V> {
  readonly #entries = new Map<K, V>();

  /** `limit`: how many entries it keeps at most. */
  constructor(private readonly limit: number) {}

  /** The value kept for `key`, or `undefined`. */
  get(key: K): V | undefined {
    return this.#entries.get(key);
  }

  /** Keeps `value` for `key` (emptying the memo first when it is full) and returns it. */
  keep(key: K, value: V): V {
    if (this.#entries.size >= this.limit && !this.#entries.has(key)) this.#entries.clear();
    this.#entries.set(key, value);
    return value;
  }

  /** The value kept for `key`, worked out by `work` on the first ask. */
  remember(key: K, work: (key: K) => V): V {
    const kept = this.#entries.get(key);
    return kept === undefined ? this.keep(key, work(key)) : kept;
  }
}
