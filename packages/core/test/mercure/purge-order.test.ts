/**
 * Real-time updates beside HTTP caching, on every database: a write's updates take their place in line at its commit
 * and leave once its purge is done. A write whose purge is slow (a shared cache far away) holds back the updates of
 * the writes committed after it, never lets them overtake it; and no update leaves before the purge of its write, so
 * that a subscriber that reads the item on an update is not served the older state by a cache.
 */
import { afterEach, beforeEach, describe, expect, inject, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { type CacheTagPurger, defineResource } from '@resource-api/core';
import { testDatabases } from '@resource-api/core/testing';
import { listen } from './listening-app.js';
import { subscribe, type Subscriber } from './subscriber.js';

const Note = defineResource({ name: 'Note', fields: { text: { type: 'string' } }, mercure: true });

describe.each(testDatabases(inject('postgresUrl'), inject('mariadbUrl')))('updates and purges on $name', (database) => {
  let app: FastifyInstance;
  let origin: string;
  let subscriber: Subscriber | undefined;
  /** The tag whose purges are held until `release` is called, and what happened, in order. */
  let held: string | undefined;
  let release: () => void = () => {};
  let purgeStarted: () => void = () => {};
  const events: string[] = [];
  const purger: CacheTagPurger = {
    name: 'slow',
    async purge(tags) {
      if (held === undefined || !tags.includes(held)) return;
      events.push(`purge ${held} started`);
      purgeStarted();
      await new Promise<void>((resolve) => {
        release = resolve;
      });
      events.push(`purge ${held} done`);
    },
  };
  beforeEach(async () => {
    held = undefined;
    events.length = 0;
    ({ app, origin } = await listen({
      database,
      resources: [Note],
      mercure: { jwtSecret: 'a-mercure-secret-that-is-long-enough', heartbeat: 0 },
      httpCache: { purgers: [purger], fanOut: false },
    }));
  });
  afterEach(async () => {
    subscriber?.close();
    release();
    await app.close();
  });
  const send = async (method: string, path: string, body: unknown) => {
    const response = await fetch(`${origin}${path}`, {
      method,
      headers: {
        accept: 'application/ld+json',
        'content-type': method === 'PATCH' ? 'application/merge-patch+json' : 'application/ld+json',
      },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  it('sends the updates in commit order when an earlier write’s purge is slower, each after its purge', async () => {
    const first = await send('POST', '/api/notes', { text: 'one' });
    const second = await send('POST', '/api/notes', { text: 'two' });
    const [firstIri, secondIri] = [String(first.body['@id']), String(second.body['@id'])];
    subscriber = await subscribe(`${origin}/.well-known/mercure`, [`${origin}/api/notes/{id}`]);

    held = firstIri;
    const purging = new Promise<void>((resolve) => {
      purgeStarted = resolve;
    });
    // The first write commits, then waits for its purge; the second commits after it and is purged at once.
    const firstPatch = send('PATCH', firstIri, { text: 'one, changed' });
    await purging;
    expect((await send('PATCH', secondIri, { text: 'two, changed' })).status).toBe(200);
    // The second write is answered; its update waits behind the first write's, which waits for its purge.
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(subscriber.received).toEqual([]);

    release();
    expect((await firstPatch).status).toBe(200);
    const received = await subscriber.next(2);
    expect(received.map((event) => JSON.parse(event.data)['@id'])).toEqual([firstIri, secondIri]);
    expect(received.map((event) => JSON.parse(event.data).text)).toEqual(['one, changed', 'two, changed']);
    expect(events).toEqual([`purge ${firstIri} started`, `purge ${firstIri} done`]);
  });
});
