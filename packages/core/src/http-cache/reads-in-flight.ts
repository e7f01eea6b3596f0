/**
 * The cacheable reads under way on this instance, for the second purge of a shared cache. A purge of Varnish right
 * after a commit removes what Varnish keeps then; but a read that started before the commit, rendered the older
 * state, and reaches Varnish after that purge would be kept, stale, for its whole lifetime. So, when a write commits,
 * `settled` waits for every cacheable read under way then to be answered, and a little longer (`delay`: Varnish
 * stores what it received a moment after the app sent it), and says whether any was under way or had just been
 * answered: then the shared caches are purged again. And a read that was still under way when a purge happened (here
 * or on another instance: the purge clock moved, `purge-clock.ts`) is sent with `Cache-Control: private, no-store`
 * (`routing/reads-in-flight-hooks.ts`), as the in-process cache refuses it (`memory-store.ts`): it may show the older
 * state, and a shared cache could receive it after both purges, when the host is slow (Varnish storing it later than
 * `delay`).
 */

export interface ReadsInFlight {
  /** A cacheable read started; the key is given to `finished`. */
  started(): number;
  /** The read of `key` has been answered (or abandoned). */
  finished(key: number): void;
  /**
   * A read was answered where it started, within one turn of the event loop (an in-process cache's hit answered
   * before the app): it was never under way across a commit, but a shared cache may still be storing its answer.
   */
  answered(): void;
  /**
   * Resolves once every read under way now has been answered, and `delay` more milliseconds since the last read
   * answered: true if there were reads to wait for (under way, or answered within `delay` before), false at once
   * otherwise. Gives up after `timeout` milliseconds (a read that never ends), resolving true.
   */
  settled(): Promise<boolean>;
}

export function createReadsInFlight(options: { readonly delay: number; readonly timeout: number }): ReadsInFlight {
  const { delay, timeout } = options;
  // In the order they started (a Set iterates in insertion order): the first is the oldest under way.
  const active = new Set<number>();
  let next = 0;
  let lastAnswered = Number.NEGATIVE_INFINITY;
  /** Writes waiting for the reads that started before key `before`. */
  const waiting: { before: number; resolve: () => void }[] = [];

  const oldest = (): number => (active.size === 0 ? next : active.values().next().value!);

  return {
    started() {
      const key = next++;
      active.add(key);
      return key;
    },
    finished(key) {
      if (!active.delete(key)) return;
      lastAnswered = performance.now();
      if (waiting.length === 0) return;
      const first = oldest();
      for (let index = waiting.length - 1; index >= 0; index--)
        if (waiting[index]!.before <= first) waiting.splice(index, 1)[0]!.resolve();
    },
    answered() {
      lastAnswered = performance.now();
    },
    async settled() {
      const before = next;
      if (active.size === 0 && performance.now() - lastAnswered >= delay) return false;
      const started = performance.now();
      if (active.size > 0 && oldest() < before)
        await new Promise<void>((resolve) => {
          const timer = setTimeout(() => {
            const index = waiting.indexOf(entry);
            if (index >= 0) waiting.splice(index, 1);
            resolve();
          }, timeout);
          const entry = {
            before,
            resolve: () => {
              clearTimeout(timer);
              resolve();
            },
          };
          waiting.push(entry);
        });
      const rest = Math.min(lastAnswered + delay - performance.now(), timeout - (performance.now() - started));
      if (rest > 0) await new Promise((resolve) => setTimeout(resolve, rest));
      return true;
    },
  };
}
