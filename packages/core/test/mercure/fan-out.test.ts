/**
 * Several instances of one app on one PostgreSQL database: the updates of each reach the subscribers of every other
 * through the database (`LISTEN/NOTIFY`), once each, in one order for all; large updates too (longer than a
 * notification may be). Here the two instances are two apps of the test's process, each with its own pool and
 * listening connection.
 */
import { afterEach, beforeEach, describe, expect, inject, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { defineResource, signHubToken } from '@resource-api/core';
import { testDatabases } from '@resource-api/core/testing';
import { listen } from './listening-app.js';
import { postBook } from './post-book.js';
import { subscribe, type Subscriber } from './subscriber.js';

const Book = defineResource({ name: 'Book', fields: { title: { type: 'string' } }, mercure: true });
const SECRET = 'the-hub-secret-of-the-fan-out-tests-0123';
const postgres = testDatabases(inject('postgresUrl'), inject('mariadbUrl')).find(
  (database) => database.name === 'postgres',
);

describe.skipIf(!postgres)('fan-out between instances on PostgreSQL', () => {
  let first: { app: FastifyInstance; origin: string };
  let second: { app: FastifyInstance; origin: string };
  const subscribers: Subscriber[] = [];
  beforeEach(async () => {
    const opened = await listen({
      database: postgres!,
      resources: [Book],
      mercure: { heartbeat: 0, jwtSecret: SECRET },
    });
    first = opened;
    second = await listen({
      database: postgres!,
      resources: [Book],
      mercure: { heartbeat: 0, jwtSecret: SECRET },
      sharedSchema: opened.schema,
    });
  });
  afterEach(async () => {
    for (const subscriber of subscribers.splice(0)) subscriber.close();
    await second.app.close();
    await first.app.close();
  });
  const listenOn = async (origin: string) => {
    const subscriber = await subscribe(`${origin}/.well-known/mercure`, ['*']);
    subscribers.push(subscriber);
    return subscriber;
  };

  it('delivers each instance’s updates to the subscribers of both, once, in the same order', async () => {
    const onFirst = await listenOn(first.origin);
    const onSecond = await listenOn(second.origin);
    const written: string[] = [];
    for (let index = 0; index < 6; index++)
      written.push(await postBook(index % 2 === 0 ? second.origin : first.origin, `b${index}`));
    const [a, b] = [await onFirst.next(6), await onSecond.next(6)];
    const ids = (events: readonly { data: string }[]) => events.map((event) => JSON.parse(event.data)['@id']);
    expect(ids(a)).toEqual(written);
    expect(ids(b)).toEqual(written);
    // The same event ids on every instance: a subscriber may resume on another one.
    expect(a.map((event) => event.id)).toEqual(b.map((event) => event.id));
    const resumed = await subscribe(`${second.origin}/.well-known/mercure`, ['*'], { lastEventId: a[3]!.id });
    subscribers.push(resumed);
    expect(ids(await resumed.next(2))).toEqual(written.slice(4));
  });

  it('carries updates longer than a notification may be', async () => {
    const onFirst = await listenOn(first.origin);
    const title = `${'é🙂"\\\u0001'.repeat(4000)}end`;
    const iri = await postBook(second.origin, title);
    const [event] = await onFirst.next(1);
    expect(JSON.parse(event!.data)).toMatchObject({ '@id': iri, title });
  });

  it('carries the updates other publishers post to one instance’s hub, in line with the writes', async () => {
    const onSecond = await listenOn(second.origin);
    const before = await postBook(first.origin, 'before');
    const form = new URLSearchParams({ topic: 'https://example.com/feeds/1', data: 'from a publisher' });
    const response = await fetch(`${first.origin}/.well-known/mercure`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Bearer ${await signHubToken({ publish: ['*'] }, SECRET)}`,
      },
      body: form.toString(),
    });
    expect(response.status).toBe(200);
    const id = await response.text();
    const after = await postBook(first.origin, 'after');
    const events = await onSecond.next(3);
    expect(JSON.parse(events[0]!.data)['@id']).toBe(before);
    expect(events[1]).toMatchObject({ id, data: 'from a publisher' });
    expect(JSON.parse(events[2]!.data)['@id']).toBe(after);
  });
});
