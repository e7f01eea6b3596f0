/**
 * The purges this instance has heard of, counted: its own writes' purges, other instances' (`instance-purges.ts`),
 * and the moments when other instances' purges may be missed (their channel went down). A cacheable read notes the
 * count when it starts (`routing/purge-clock-request.ts`); if the count moved before its response leaves, the read
 * overlapped a write and may show the state before it: the in-process cache does not keep it (`memory-store.ts`),
 * and it leaves as `private, no-store` when shared caches are in front (`routing/reads-in-flight-hooks.ts`).
 *
 * One clock per app: whoever purges advances it first, then removes what it purges (the in-process store advances it
 * too, whoever asks it to purge).
 */
export interface PurgeClock {
  /** The purges counted so far. */
  readonly now: number;
  /** A purge happens (or purges may have been missed). */
  advance(): void;
}

export function createPurgeClock(): PurgeClock {
  let count = 0;
  return {
    get now() {
      return count;
    },
    advance() {
      count++;
    },
  };
}
