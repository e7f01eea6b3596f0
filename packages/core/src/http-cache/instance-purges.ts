/**
 * The purges of several instances of an app, each with its own in-process cache (and reads that a shared cache's
 * second purge waits for), through a channel they share: PostgreSQL `LISTEN/NOTIFY` or Redis pub/sub
 * (`purge-channels.ts`).
 *
 * Never stale across instances: a write's purge is sent to every instance, and the write is answered only once every
 * instance it knows of has acknowledged it — its cache purged (and, when a shared cache is purged too, its cacheable
 * reads under way answered). A read that starts on any instance after the write's answer therefore finds nothing
 * older in that instance's cache, and a read already under way there cannot store what it rendered
 * (`memory-store.ts` refuses a response rendered across a purge).
 *
 * Instances know each other by what they send: each says hello when it starts, to each newcomer it hears, and every
 * few seconds, goodbye when it closes. One that stops answering is waited for `timeout` milliseconds, logged, and no
 * longer waited for until it speaks again. While an instance's link to the channel is down it misses purges, so its
 * cache is emptied and unused until the link is back.
 */
import { randomBytes } from 'node:crypto';
import type { MemoryStore } from './memory-store.js';
import type { PurgeClock } from './purge-clock.js';
import type { ReadsInFlight } from './reads-in-flight.js';

/** Milliseconds between hellos, and how long an instance is known after it last spoke. */
const HELLO_EVERY = 5_000;
const KNOWN_FOR = 3 * HELLO_EVERY;

/** The channel the instances share: one text per message, to every instance, this one included. */
export interface PurgeChannel {
  /** The longest message it carries, in bytes (a purge of more tags empties the caches instead). */
  readonly maxBytes: number;
  send(text: string): Promise<void>;
  close(): Promise<void>;
}

/** Opens the channel; `message` gets every message, `link` whether messages are being missed (false) or not. */
export type OpenPurgeChannel = (receive: {
  readonly message: (text: string) => void;
  readonly link: (up: boolean) => void;
}) => Promise<PurgeChannel>;

/**
 * What travels: a hello (`h`), a goodbye (`x`), a purge (`p`: its number, tags or null for all, `s`: settle reads), an
 * ack.
 */
type Message =
  | { readonly h: string }
  | { readonly x: string }
  | { readonly p: number; readonly f: string; readonly t: readonly string[] | null; readonly s: 0 | 1 }
  | { readonly a: number; readonly f: string; readonly b: string; readonly n: 0 | 1 };

export interface InstancePurges {
  /**
   * Sends the purge of `tags` (null: everything) to the other instances, and resolves once each one known has done
   * it (with `settle`, once its cacheable reads under way have been answered too): true when one of them had such
   * reads, so that a shared cache must be purged again.
   */
  purge(tags: readonly string[] | null, settle: boolean): Promise<boolean>;
  close(): Promise<void>;
}

export interface InstancePurgesOptions {
  readonly open: OpenPurgeChannel;
  /** This instance's in-process cache, if it has one. */
  readonly store: MemoryStore | null;
  /** The app's purge clock, advanced by each purge heard and when purges may be missed. */
  readonly clock: PurgeClock;
  /** This instance's cacheable reads, when a shared cache is purged. */
  readonly reads: ReadsInFlight | null;
  /** Milliseconds a write waits for an instance's acknowledgement. */
  readonly timeout: number;
  readonly log: { warn(object: unknown, message?: string): void; error(object: unknown, message?: string): void };
}

export async function createInstancePurges(options: InstancePurgesOptions): Promise<InstancePurges> {
  const { store, clock, reads, timeout, log } = options;
  const self = randomBytes(9).toString('base64url');
  /** The other instances, with when each last spoke. */
  const known = new Map<string, number>();
  /** This instance's purges waiting for acknowledgements: who has not answered yet, and whether one asked for more. */
  const pending = new Map<number, { waiting: Set<string>; again: boolean; done: () => void }>();
  let sent = 0;
  let closed = false;

  const speak = (message: Message): Promise<void> => channel.send(JSON.stringify(message));
  const sayHello = (): void =>
    void speak({ h: self }).catch((error: unknown) => {
      if (!closed) log.error({ err: error }, 'httpCache: could not greet the other instances.');
    });

  function heard(from: string): void {
    if (from === self) return;
    // A newcomer learns of this instance at once, not at its next hello: its writes must wait for this one from the
    // start.
    const isNew = !known.has(from);
    known.set(from, Date.now());
    if (isNew) sayHello();
  }

  function acknowledged(from: string, number: number, again: boolean): void {
    const purge = pending.get(number);
    if (!purge) return;
    purge.again ||= again;
    purge.waiting.delete(from);
    if (purge.waiting.size === 0) purge.done();
  }

  async function receive(text: string): Promise<void> {
    let message: Message;
    try {
      message = JSON.parse(text) as Message;
    } catch {
      log.warn({ text: text.slice(0, 200) }, 'httpCache: a message on the purge channel is not one of its; ignored.');
      return;
    }
    if ('h' in message) return heard(message.h);
    if ('x' in message) {
      known.delete(message.x);
      // Gone: its acknowledgements will not come, and it keeps nothing.
      for (const number of pending.keys()) acknowledged(message.x, number, false);
      return;
    }
    if ('a' in message) {
      heard(message.b);
      if (message.f === self) acknowledged(message.b, message.a, message.n === 1);
      return;
    }
    if (message.f === self) return;
    heard(message.f);
    clock.advance();
    store?.purge(message.t);
    const again = message.s === 1 && reads !== null ? await reads.settled() : false;
    await speak({ a: message.p, f: message.f, b: self, n: again ? 1 : 0 }).catch((error: unknown) =>
      log.error({ err: error }, 'httpCache: could not acknowledge a purge of another instance.'),
    );
  }

  const channel = await options.open({
    message: (text) => void receive(text),
    link(up) {
      // Down: purges are being missed, so nothing kept may be trusted, nor anything rendered meanwhile. Up: cached
      // again from now on, and known to the others again. The clock moves both ways: a read that started while the
      // link was down may have missed a purge, even if it ends once the link is back.
      clock.advance();
      store?.use(up);
      if (up) sayHello();
    },
  });
  sayHello();
  const hello = setInterval(sayHello, HELLO_EVERY);
  hello.unref();

  return {
    async purge(tags, settle) {
      const number = ++sent;
      const now = Date.now();
      const waiting = new Set<string>();
      for (const [instance, spoke] of known)
        if (now - spoke <= KNOWN_FOR) waiting.add(instance);
        else known.delete(instance);
      let text = JSON.stringify({ p: number, f: self, t: tags, s: settle ? 1 : 0 } satisfies Message);
      // Too many tags for the channel: every instance empties its cache instead, never less than asked.
      if (Buffer.byteLength(text) > channel.maxBytes)
        text = JSON.stringify({ p: number, f: self, t: null, s: settle ? 1 : 0 } satisfies Message);
      let again = false;
      const acknowledgedByAll = new Promise<void>((resolve) => {
        if (waiting.size === 0) return resolve();
        pending.set(number, {
          waiting,
          again: false,
          done: () => {
            again = pending.get(number)!.again;
            resolve();
          },
        });
      });
      // Sent even when no other instance is known yet: one that just started has its cache purged too.
      await channel.send(text);
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([acknowledgedByAll, new Promise<void>((resolve) => (timer = setTimeout(resolve, timeout)))]);
      clearTimeout(timer);
      const purge = pending.get(number);
      pending.delete(number);
      if (purge && purge.waiting.size > 0) {
        log.warn(
          { instances: [...purge.waiting], timeout },
          'httpCache: instances did not acknowledge a purge in time; no longer waited for until they speak again',
        );
        for (const instance of purge.waiting) known.delete(instance);
        return true;
      }
      return again;
    },
    async close() {
      closed = true;
      clearInterval(hello);
      await speak({ x: self }).catch(() => undefined);
      for (const purge of pending.values()) purge.done();
      await channel.close();
    },
  };
}
