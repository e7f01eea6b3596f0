/**
 * The in-process cache's store: lifetimes, the memory bound (least recently used out), purge by tag, the purge clock.
 */
import { describe, expect, it } from 'vitest';
import { type CachedResponse, createMemoryStore } from './memory-store.js';
import { createPurgeClock } from './purge-clock.js';

const entry = (tags: string[], body = 'x'.repeat(200), expiresAt = 10_000): CachedResponse => ({
  status: 200,
  headers: { 'content-type': 'application/ld+json' },
  body: Buffer.from(body),
  tags,
  varies: {},
  storedAt: 0,
  expiresAt,
});

describe('the in-process cache store', () => {
  it('answers a fresh response, and forgets an expired one', () => {
    const clock = createPurgeClock();
    const store = createMemoryStore(1_000_000, clock);
    store.add('a', entry(['/api/a/1'], 'x', 100), clock.now);
    expect(store.find('a', 99)?.body.toString()).toBe('x');
    expect(store.find('a', 100)).toBeUndefined();
    expect(store.size.entries).toBe(0);
  });

  it('stays within its bytes, dropping the least recently used first', () => {
    const clock = createPurgeClock();
    const store = createMemoryStore(1_000, clock);
    for (const key of ['a', 'b', 'c', 'd']) store.add(key, entry([`/api/x/${key}`]), clock.now);
    expect(store.size.bytes).toBeLessThanOrEqual(1_000);
    // Three fit (264 bytes each): `a` went first; reading `b` makes `c` the next to go.
    expect(store.size.entries).toBe(3);
    expect(store.find('a', 0)).toBeUndefined();
    expect(store.find('b', 0)).toBeDefined();
    store.add('e', entry(['/api/x/e']), clock.now);
    expect(store.find('c', 0)).toBeUndefined();
    expect(store.find('b', 0)).toBeDefined();
    expect(store.find('d', 0)).toBeDefined();
  });

  it('drops the oldest when every entry was used since, and a hot entry survives many evictions', () => {
    const clock = createPurgeClock();
    const store = createMemoryStore(1_000, clock);
    for (const key of ['a', 'b', 'c']) store.add(key, entry([`/api/x/${key}`]), clock.now);
    for (const key of ['a', 'b', 'c']) store.find(key, 0);
    store.add('d', entry(['/api/x/d']), clock.now);
    expect(store.find('a', 0)).toBeUndefined();
    expect(['b', 'c', 'd'].map((key) => store.find(key, 0) !== undefined)).toEqual([true, true, true]);
    // `hot` is read between every addition: a hundred newer entries come and go, it stays.
    store.add('hot', entry(['/api/x/hot']), clock.now);
    for (let i = 0; i < 100; i++) {
      expect(store.find('hot', 0)).toBeDefined();
      store.add(`cold-${i}`, entry([`/api/x/cold-${i}`]), clock.now);
    }
    expect(store.find('hot', 0)).toBeDefined();
    expect(store.size.entries).toBe(3);
    expect(store.size.bytes).toBeLessThanOrEqual(1_000);
  });

  it('purges every response listing a tag, and keeps the others', () => {
    const clock = createPurgeClock();
    const store = createMemoryStore(1_000_000, clock);
    store.add('item', entry(['/api/books/1']), clock.now);
    store.add('page', entry(['/api/books', '/api/books/1', '/api/books/2']), clock.now);
    store.add('other', entry(['/api/authors/1']), clock.now);
    store.purge(['/api/books/1']);
    expect(store.find('item', 0)).toBeUndefined();
    expect(store.find('page', 0)).toBeUndefined();
    expect(store.find('other', 0)).toBeDefined();
  });

  it('refuses a response whose request started before a purge', () => {
    const clock = createPurgeClock();
    const store = createMemoryStore(1_000_000, clock);
    const started = clock.now;
    // The store's own purge moves the clock: no caller can purge it and leave a read under way free to store.
    store.purge(['/api/books/1']);
    expect(clock.now).not.toBe(started);
    store.add('late', entry(['/api/authors/1']), started);
    expect(store.find('late', 0)).toBeUndefined();
    store.add('after', entry(['/api/authors/1']), clock.now);
    expect(store.find('after', 0)).toBeDefined();
  });
});
