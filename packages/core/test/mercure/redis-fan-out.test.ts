/**
 * Several instances of one app with the Redis update bus (`mercure.redis`): on one SQLite file as on PostgreSQL, the
 * updates of each reach the subscribers of every other through Redis pub/sub, once each, in the order written; what
 * else is published on the channel is logged and ignored; an ioredis client of the app's is used and left open. Here
 * the two instances are two apps of the test's process, each with its own database connections and Redis connections.
 * Redis is expected at 127.0.0.1:6379 (`TEST_REDIS_URL`): without it these tests are skipped with a loud notice, and
 * fail under `CI=true`. The option's checks and a Redis that does not answer need no Redis.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { DeclarationError, defineResource, type MercureOptions } from '@resource-api/core';
import { type TestDatabase, testDatabases } from '@resource-api/core/testing';
import { REDIS_URL, redisAvailable } from '../redis.js';
import { listen } from './listening-app.js';
import { postBook } from './post-book.js';
import { subscribe, type Subscriber } from './subscriber.js';

const Book = defineResource({ name: 'Book', fields: { title: { type: 'string' } }, mercure: true });

// Two processes on one SQLite file: the in-memory database of the test kit would be one database per instance.
const directory = mkdtempSync(join(tmpdir(), 'resource-api-redis-bus-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));
const databases: TestDatabase[] = testDatabases(inject('postgresUrl'), inject('mariadbUrl')).map((database) =>
  database.name === 'sqlite' ? { name: 'sqlite', url: `sqlite:${join(directory, 'shared.db')}` } : database,
);

/** A channel of the test's own: other tests (and other runs) may use the same Redis at the same time. */
const newChannel = () => `test-mercure-${randomBytes(6).toString('hex')}`;

const ids = (events: readonly { data: string }[]) => events.map((event) => JSON.parse(event.data)['@id']);
/** Closes an app once, whether the test closed it already or not. */
const closed = new WeakSet<FastifyInstance>();
const close = async (app: FastifyInstance) => {
  if (closed.has(app)) return;
  closed.add(app);
  await app.close();
};
const sleep = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));

describe.skipIf(!redisAvailable).each(databases)('fan-out through Redis, on $name', (database) => {
  let first: { app: FastifyInstance; origin: string };
  let second: { app: FastifyInstance; origin: string };
  let channel: string;
  /** The log lines (warn and above) of the first instance. */
  let logged: Record<string, unknown>[];
  const subscribers: Subscriber[] = [];
  /** The test's own connection, to publish on the channel (opened only when the suite runs). */
  let redis: Redis;
  beforeAll(() => void (redis = new Redis(REDIS_URL)));
  afterAll(() => redis.disconnect());

  /** Both instances on the shared database and the test's channel; the second with `redis` as given. */
  const open = async (secondRedis: MercureOptions['redis'] = REDIS_URL) => {
    channel = newChannel();
    logged = [];
    const mercure = (redisOption: MercureOptions['redis']) => ({
      heartbeat: 0,
      redis: redisOption,
      redisChannel: channel,
    });
    const opened = await listen({ database, resources: [Book], mercure: mercure(REDIS_URL), logged });
    first = opened;
    second = await listen({ database, resources: [Book], mercure: mercure(secondRedis), sharedSchema: opened.schema });
  };
  afterEach(async () => {
    for (const subscriber of subscribers.splice(0)) subscriber.close();
    // The first drops the PostgreSQL schema both use: it closes last.
    await close(second.app);
    await close(first.app);
  });
  const listenOn = async (origin: string) => {
    const subscriber = await subscribe(`${origin}/.well-known/mercure`, ['*']);
    subscribers.push(subscriber);
    return subscriber;
  };

  it('delivers the updates of both instances to the subscribers of both, once each, in the order written', async () => {
    await open();
    const onFirst = await listenOn(first.origin);
    const onSecond = await listenOn(second.origin);
    const written: string[] = [];
    // Three writes in a row on one instance, then on the other: an instance's updates keep its commit order; across
    // instances the test waits for the last update before writing on the other (their order is Redis's, see the docs).
    for (const [round, origin] of [second.origin, first.origin, second.origin].entries()) {
      for (let index = 0; index < 3; index++) written.push(await postBook(origin, `round ${round}, book ${index}`));
      await Promise.all([onFirst.next(written.length), onSecond.next(written.length)]);
    }
    await sleep(200);
    expect(ids(onFirst.received)).toEqual(written);
    expect(ids(onSecond.received)).toEqual(written);
    // The same event ids on every instance: a subscriber may resume on another one.
    expect(onFirst.received.map((event) => event.id)).toEqual(onSecond.received.map((event) => event.id));
    // Nothing left over from the updates' own message of the channel.
    expect(logged).toEqual([]);
  });

  it('logs and ignores what else is published on the channel, and delivers the updates after it', async () => {
    await open();
    const onFirst = await listenOn(first.origin);
    const update = { topics: ['urn:x'], data: '{}', private: false, id: 'urn:uuid:1' };
    const item = { resource: 'Book', id: 1, deleted: false };
    // A list is one write's messages: a list with one bad message is ignored whole.
    for (const text of [
      'not JSON',
      '{"update": {}}',
      '[{"update": {}}]',
      JSON.stringify([{ update: { ...update, data: undefined }, item }]),
      JSON.stringify([
        { update, item },
        { update: { ...update, id: 'an id\n\ndata: forged' }, item },
      ]),
      JSON.stringify([{ update: { ...update, topics: [] }, item }]),
    ])
      expect(await redis.publish(channel, text)).toBe(2);
    const iri = await postBook(second.origin, 'after the noise');
    expect(ids(await onFirst.next(1))).toEqual([iri]);
    await sleep(100);
    expect(onFirst.received).toHaveLength(1);
    const ignored = logged.filter(
      (line) => line.msg === 'A message on the Mercure channel is not a message of the bus; ignored.',
    );
    expect(ignored.map((line) => (line.err as { message: string }).message)).toEqual([
      'not JSON',
      'no list of messages',
      'message 0: "update.topics" is no list of topics',
      'message 0: "update.data" is no string',
      'message 1: "update.id" is no one-line string',
      'message 0: "update.topics" is no list of topics',
    ]);
  });

  it('publishes with an ioredis client of the app’s, and leaves it open; its own connections close with the app', async () => {
    const client = new Redis(REDIS_URL);
    try {
      await open(client);
      const onFirst = await listenOn(first.origin);
      const iri = await postBook(second.origin, 'through your client');
      expect(ids(await onFirst.next(1))).toEqual([iri]);
      const numsub = async () => ((await redis.pubsub('NUMSUB', channel)) as [string, number])[1];
      expect(await numsub()).toBe(2);
      await close(second.app);
      expect(client.status).toBe('ready');
      expect(await client.ping()).toBe('PONG');
      // The subscription of the closed instance is gone; the first instance's goes when it closes.
      expect(await numsub()).toBe(1);
      await close(first.app);
      expect(await numsub()).toBe(0);
    } finally {
      client.disconnect();
    }
  });
});

describe.skipIf(!redisAvailable)('a Redis that refuses the subscription', () => {
  it('stops the start with an error naming the channel, and leaves no connection open', async () => {
    const admin = new Redis(REDIS_URL);
    const user = `test-no-subscribe-${randomBytes(6).toString('hex')}`;
    try {
      await admin.acl('SETUSER', user, 'on', '>secret', '~*', '&*', '+@all', '-subscribe');
      const url = new URL(REDIS_URL);
      Object.assign(url, { username: user, password: 'secret' });
      const channel = newChannel();
      const [memory] = testDatabases(undefined);
      await expect(
        listen({ database: memory!, resources: [Book], mercure: { redis: url.href, redisChannel: channel } }),
      ).rejects.toThrow(`mercure.redis: Redis refused the subscription to "${channel}": NOPERM`);
      const clients = (await admin.client('LIST')) as string;
      expect(clients).not.toContain(`user=${user} `);
    } finally {
      await admin.acl('DELUSER', user);
      admin.disconnect();
    }
  });
});

describe('a Redis bus that does not answer', () => {
  it('does not stop the start; it logs the outage, and each update it could not send', async () => {
    const logged: Record<string, unknown>[] = [];
    const [memory] = testDatabases(undefined);
    const { app, origin } = await listen({
      database: memory!,
      resources: [Book],
      mercure: { heartbeat: 0, redis: 'redis://127.0.0.1:9' },
      logged,
    });
    try {
      expect(logged.map((line) => line.msg)).toEqual([
        'mercure: the Redis bus does not answer; no update (of any instance) reaches this one until it does',
        'mercure: the Redis bus does not answer; updates sent meanwhile are lost',
      ]);
      // The write is answered as committed; its update is lost, and logged.
      await postBook(origin, 'lost');
      await vi.waitFor(() =>
        expect(logged.map((line) => line.msg)).toContain('Updates could not be sent to the hubs.'),
      );
    } finally {
      await app.close();
    }
  });
});

describe('the mercure.redis option', () => {
  const [memory] = testDatabases(undefined);
  it.each([
    [
      { redis: '127.0.0.1:6379' },
      /"mercure.redis" must be a redis:\/\/ \(or rediss:\/\/\) URL or an ioredis client, got a string without either scheme/,
    ],
    [{ redis: { host: 'cache' } as never }, /"mercure.redis" must be a redis:\/\/ .* got object/],
    [{ redis: REDIS_URL, fanOut: false }, /"mercure.fanOut: false" turns off: give one or the other/],
    [
      { redis: REDIS_URL, url: 'https://hub.example.com/.well-known/mercure', jwtSecret: 'x'.repeat(32) },
      /with an external hub/,
    ],
    [{ redisChannel: 'mine' }, /"mercure.redisChannel" names a channel of "mercure.redis", which is not set/],
    [{ redis: REDIS_URL, redisChannel: '' }, /"mercure.redisChannel" must be a non-empty string/],
  ] as [MercureOptions, RegExp][])('refuses %o at start-up', async (mercure, message) => {
    const start = listen({ database: memory!, resources: [Book], mercure });
    await expect(start).rejects.toBeInstanceOf(DeclarationError);
    await expect(start).rejects.toThrow(message);
  });
});
