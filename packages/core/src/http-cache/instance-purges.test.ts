/**
 * The other instances' purges, heard through a channel (here one made in memory, holding what the PostgreSQL and Redis
 * channels give: every message to every instance, and whether the link is up): each purge heard moves this instance's
 * purge clock and empties what it names; a link that goes down or comes back moves the clock too, since a read under
 * way across it may have missed a purge.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type CachedResponse, createMemoryStore } from './memory-store.js';
import { createInstancePurges, type InstancePurges, type OpenPurgeChannel } from './instance-purges.js';
import { createPurgeClock } from './purge-clock.js';

const entry = (tags: string[]): CachedResponse => ({
  status: 200,
  headers: {},
  body: Buffer.from('{}'),
  tags,
  varies: {},
  storedAt: 0,
  expiresAt: Number.MAX_SAFE_INTEGER,
});

/** A channel shared in memory by the instances opened on it; `link` reaches every one of them. */
function memoryChannel() {
  const receivers: { message: (text: string) => void; link: (up: boolean) => void }[] = [];
  const open: OpenPurgeChannel = async (receiver) => {
    receivers.push(receiver);
    return {
      maxBytes: 8000,
      send: async (text) => {
        for (const other of [...receivers]) other.message(text);
      },
      close: async () => void receivers.splice(receivers.indexOf(receiver), 1),
    };
  };
  const link = (up: boolean): void => {
    for (const receiver of receivers) receiver.link(up);
  };
  return { open, link };
}

const silent = { warn: () => {}, error: () => {} };
const opened: InstancePurges[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((instance) => instance.close()));
});

/** An instance on `channel`: its clock and in-process store (none: an instance that only writes). */
async function openInstance(channel: ReturnType<typeof memoryChannel>, withStore = true) {
  const clock = createPurgeClock();
  const store = withStore ? createMemoryStore(1_000_000, clock) : null;
  const purges = await createInstancePurges({
    open: channel.open,
    store,
    clock,
    reads: null,
    timeout: 500,
    log: silent,
  });
  opened.push(purges);
  return { clock, store: store!, purges };
}

describe('purges of other instances', () => {
  it('move the clock and empty what they name, so a read under way stores nothing', async () => {
    const channel = memoryChannel();
    const { clock, store } = await openInstance(channel);
    const writer = (await openInstance(channel, false)).purges;
    store.add('book', entry(['/api/books/1']), clock.now);
    store.add('author', entry(['/api/authors/1']), clock.now);
    const readStarted = clock.now;
    await writer.purge(['/api/books/1'], false);
    expect(clock.now).not.toBe(readStarted);
    expect(store.find('book', 0)).toBeUndefined();
    expect(store.find('author', 0)).toBeDefined();
    store.add('rendered-meanwhile', entry(['/api/authors/2']), readStarted);
    expect(store.find('rendered-meanwhile', 0)).toBeUndefined();
  });

  it('move the clock when the link goes down and when it comes back, and keep nothing while it is down', async () => {
    const channel = memoryChannel();
    const { clock, store } = await openInstance(channel);
    store.add('book', entry(['/api/books/1']), clock.now);
    const beforeDown = clock.now;
    channel.link(false);
    expect(clock.now).not.toBe(beforeDown);
    expect(store.find('book', 0)).toBeUndefined();
    // A read that starts while the link is down and ends after it is back may have missed a purge: not kept.
    const startedWhileDown = clock.now;
    store.add('while-down', entry(['/api/books/2']), startedWhileDown);
    expect(store.find('while-down', 0)).toBeUndefined();
    channel.link(true);
    expect(clock.now).not.toBe(startedWhileDown);
    store.add('across-the-return', entry(['/api/books/2']), startedWhileDown);
    expect(store.find('across-the-return', 0)).toBeUndefined();
    store.add('after', entry(['/api/books/3']), clock.now);
    expect(store.find('after', 0)).toBeDefined();
  });
});
