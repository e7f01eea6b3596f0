/**
 * The built-in hub's side of the Mercure protocol, with real clients on a listening hub (the `mercureHub` plugin
 * alone): the publish endpoint and its JWT, private updates only for the subscribers a JWT allows (header or cookie),
 * resuming with `Last-Event-ID` from a bounded history, heartbeats, and the limits that keep slow subscribers and too
 * many of them from holding memory.
 */
import { connect } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import Fastify, { type FastifyInstance } from 'fastify';
import { type MercureHubOptions, mercureHub, signHubToken } from '@resource-api/core';
import { subscribe, type Subscriber } from './subscriber.js';

const SECRET = 'the-hub-secret-of-these-tests-0123456789';
const TOPIC = 'https://example.com/books/1';

describe('the built-in hub', () => {
  let hub: FastifyInstance;
  let url: string;
  const subscribers: Subscriber[] = [];
  async function start(options: MercureHubOptions = {}) {
    hub = Fastify({ forceCloseConnections: true });
    await hub.register(mercureHub, { jwtSecret: SECRET, heartbeat: 0, ...options });
    await hub.listen({ port: 0, host: '127.0.0.1' });
    const address = hub.server.address();
    url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/.well-known/mercure`;
  }
  beforeEach(() => start());
  afterEach(async () => {
    for (const subscriber of subscribers.splice(0)) subscriber.close();
    await hub.close();
  });
  const listen = async (topics: string[], options?: Parameters<typeof subscribe>[2]) => {
    const subscriber = await subscribe(url, topics, options);
    subscribers.push(subscriber);
    return subscriber;
  };
  const publisher = () => signHubToken({ publish: ['*'] }, SECRET);
  async function publish(
    fields: Record<string, string | string[]>,
    token?: string,
    type = 'application/x-www-form-urlencoded',
  ) {
    const form = new URLSearchParams();
    for (const [name, value] of Object.entries(fields))
      for (const one of Array.isArray(value) ? value : [value]) form.append(name, one);
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': type, ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: type === 'application/json' ? JSON.stringify(fields) : form.toString(),
    });
    return { status: response.status, text: await response.text(), headers: response.headers };
  }

  it('takes updates from publishers whose JWT allows each topic, and refuses the others without publishing', async () => {
    const subscriber = await listen(['*'], { types: ['book'] });
    expect((await publish({ topic: TOPIC, data: 'no token' })).status).toBe(401);
    const forged = await signHubToken({ publish: ['*'] }, 'another-secret-of-the-same-length-012345');
    const wrongKey = await publish({ topic: TOPIC, data: 'forged' }, forged);
    expect(wrongKey.status).toBe(401);
    expect(JSON.parse(wrongKey.text).detail).toMatch(/The JWT is not valid/);
    const subscribeOnly = await signHubToken({ subscribe: ['*'] }, SECRET);
    expect((await publish({ topic: TOPIC, data: 'no publish claim' }, subscribeOnly)).status).toBe(403);
    const narrow = await signHubToken({ publish: ['https://example.com/books/{id}'] }, SECRET);
    expect((await publish({ topic: [TOPIC, 'https://example.com/authors/1'], data: 'x' }, narrow)).status).toBe(403);
    expect((await publish({ data: 'no topic' }, await publisher())).status).toBe(400);
    expect((await publish({ topic: TOPIC, id: '#1' }, await publisher())).status).toBe(400);
    expect((await publish({ topic: TOPIC, type: 'a\nb' }, await publisher())).status).toBe(400);
    expect((await publish({ topic: TOPIC, retry: 'soon' }, await publisher())).status).toBe(400);
    expect((await publish({ topic: TOPIC, data: 'json' }, await publisher(), 'application/json')).status).toBe(415);

    const accepted = await publish(
      { topic: TOPIC, data: 'line one\nline two', id: 'urn:example:1', type: 'book', retry: '2000' },
      narrow,
    );
    expect(accepted.status).toBe(200);
    expect(accepted.text).toBe('urn:example:1');
    expect(accepted.headers.get('content-type')).toMatch(/^text\/plain/);
    const received = await subscriber.next(1);
    // The refused updates reached nobody: the accepted one is the first.
    expect(received).toEqual([{ id: 'urn:example:1', type: 'book', data: 'line one\nline two' }]);
    // Without an id the hub makes one, and answers it.
    const generated = await publish({ topic: TOPIC, data: 'x' }, await publisher());
    expect(generated.text).toMatch(/^urn:uuid:/);
  });

  it('delivers private updates only to subscribers whose JWT, in the header or the cookie, allows a topic', async () => {
    const header = await listen([TOPIC], { token: await signHubToken({ subscribe: [TOPIC] }, SECRET) });
    const cookie = await listen([TOPIC], {
      cookie: `other=1; mercureAuthorization=${await signHubToken({ subscribe: ['https://example.com/{+any}'] }, SECRET)}`,
    });
    const anonymous = await listen([TOPIC]);
    const elsewhere = await listen([TOPIC], {
      token: await signHubToken({ subscribe: ['https://example.com/authors/{id}'] }, SECRET),
    });
    await publish({ topic: TOPIC, data: 'secret', private: 'on' }, await publisher());
    await publish({ topic: TOPIC, data: 'public' }, await publisher());
    expect((await header.next(2)).map((event) => event.data)).toEqual(['secret', 'public']);
    expect((await cookie.next(2)).map((event) => event.data)).toEqual(['secret', 'public']);
    expect((await anonymous.next(1)).map((event) => event.data)).toEqual(['public']);
    expect((await elsewhere.next(1)).map((event) => event.data)).toEqual(['public']);
    // A token that does not verify is refused, never taken as no token.
    await expect(listen([TOPIC], { token: 'not.a.jwt' })).rejects.toThrow(/401/);
    const response = await fetch(`${url}?topic=${encodeURIComponent(TOPIC)}`, {
      headers: {
        authorization: `Bearer ${await signHubToken({ subscribe: ['*'] }, 'a-wrong-secret-of-enough-length-0123456')}`,
      },
    });
    expect(response.status).toBe(401);
  });

  it('refuses anonymous subscribers when told to, and a subscription without a topic', async () => {
    expect((await fetch(url)).status).toBe(400);
    await hub.close();
    await start({ anonymous: false });
    expect((await fetch(`${url}?topic=*`)).status).toBe(401);
    const subscriber = await listen(['*'], { token: await signHubToken({ subscribe: [] }, SECRET) });
    await publish({ topic: TOPIC, data: 'public' }, await publisher());
    expect((await subscriber.next(1))[0]!.data).toBe('public');
  });

  it('resumes after Last-Event-ID from its history, with the matching updates only', async () => {
    const ids: string[] = [];
    for (const [topic, data] of [
      [TOPIC, 'one'],
      ['https://example.com/authors/1', 'other topic'],
      [TOPIC, 'two'],
      [TOPIC, 'three'],
    ])
      ids.push((await publish({ topic: topic!, data: data! }, await publisher())).text);
    const resumed = await listen([TOPIC], { lastEventId: ids[0] });
    expect((await resumed.next(2)).map((event) => event.data)).toEqual(['two', 'three']);
    const everything = await listen([TOPIC], { lastEventId: 'earliest' });
    expect((await everything.next(3)).map((event) => event.data)).toEqual(['one', 'two', 'three']);
    // The response names the last update held, to resume from next time.
    const response = await fetch(`${url}?topic=*`);
    expect(response.headers.get('last-event-id')).toBe(ids[3]);
    await response.body?.cancel();
    // An id the hub does not hold resumes nothing; live updates still come.
    const unknown = await listen([TOPIC], { lastEventId: 'urn:uuid:unknown' });
    await publish({ topic: TOPIC, data: 'four' }, await publisher());
    expect((await unknown.next(1)).map((event) => event.data)).toEqual(['four']);
    // And the EventSource itself resumes after a reconnection, with the last id it saw.
    expect(resumed.received.at(-1)).toBeDefined();
  });

  it('keeps a bounded history', async () => {
    await hub.close();
    await start({ historySize: 2 });
    for (const data of ['a', 'b', 'c']) await publish({ topic: TOPIC, data }, await publisher());
    const everything = await listen([TOPIC], { lastEventId: 'earliest' });
    expect((await everything.next(2)).map((event) => event.data)).toEqual(['b', 'c']);
  });

  it('sends heartbeats on an interval', async () => {
    await hub.close();
    await start({ heartbeat: 50 });
    const response = await fetch(`${url}?topic=*`);
    const reader = response.body!.getReader();
    let text = '';
    while ((text.match(/:\n\n/g) ?? []).length < 3) text += new TextDecoder().decode((await reader.read()).value);
    await reader.cancel();
    expect(text.startsWith(':\n\n')).toBe(true);
  });

  it('paces its writes to a subscriber by writeInterval: a quiet update at once, a burst together', async () => {
    await hub.close();
    await expect(start({ writeInterval: -1 })).rejects.toThrow(
      'mercureHub.writeInterval must be a whole number of milliseconds from 0 up, got -1.',
    );
    await start({ writeInterval: 300 });
    const subscriber = await listen([TOPIC]);
    const token = await publisher();
    await publish({ topic: TOPIC, data: 'a' }, token);
    await subscriber.next(1);
    const first = performance.now();
    // Published right after the first write: they wait for the interval, then leave together.
    await publish({ topic: TOPIC, data: 'b' }, token);
    await publish({ topic: TOPIC, data: 'c' }, token);
    expect((await subscriber.next(3)).map((event) => event.data)).toEqual(['a', 'b', 'c']);
    expect(performance.now() - first).toBeGreaterThanOrEqual(250);
    // After a quiet time, an update leaves at once again.
    await new Promise((resolve) => setTimeout(resolve, 350));
    const quiet = performance.now();
    await publish({ topic: TOPIC, data: 'd' }, token);
    await subscriber.next(4);
    expect(performance.now() - quiet).toBeLessThan(250);
  });

  it('refuses subscribers past its limit with 503', async () => {
    await hub.close();
    await start({ maxSubscribers: 1 });
    await listen(['*']);
    const refused = await fetch(`${url}?topic=*`);
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('10');
  });

  it('drops a subscriber that does not read, without slowing publishers or the other subscribers', async () => {
    await hub.close();
    await start({ maxQueuedBytes: 256 * 1024 });
    const { port } = new URL(url);
    // A client that subscribes and then reads nothing more.
    const stalled = connect(Number(port), '127.0.0.1');
    stalled.write(`GET /.well-known/mercure?topic=* HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
    await new Promise((resolve) => stalled.once('data', resolve));
    stalled.pause();
    const reader = await listen(['*']);
    const data = 'x'.repeat(128 * 1024);
    const started = Date.now();
    // 12.5 MiB: more than the kernel's buffers of the stalled connection and its queue in the hub hold.
    const published = 100;
    for (let index = 0; index < published; index++) await publish({ topic: TOPIC, data }, await publisher());
    expect(Date.now() - started).toBeLessThan(30_000);
    // The subscriber that reads received every update.
    expect((await reader.next(published, 30_000)).length).toBe(published);
    // The stalled one, reading again, finds its connection ended, short of what was published.
    let read = 0;
    stalled.on('data', (chunk: Buffer) => {
      read += chunk.length;
    });
    stalled.resume();
    await new Promise((resolve) => stalled.once('close', resolve));
    expect(read).toBeLessThan(published * data.length);
    stalled.destroy();
  }, 60_000);

  it('resumes a history larger than a subscriber may queue, in parts, then what was published meanwhile', async () => {
    await hub.close();
    await start({ maxQueuedBytes: 64 * 1024 });
    // 8 × 32 KiB held: four times what a subscriber may queue.
    const held = Array.from({ length: 8 }, (_, index) => `${index}`.repeat(32 * 1024));
    const ids: string[] = [];
    for (const data of held) ids.push((await publish({ topic: TOPIC, data }, await publisher())).text);
    const resumed = await listen([TOPIC], { lastEventId: 'earliest' });
    await publish({ topic: TOPIC, data: 'meanwhile' }, await publisher());
    const received = await resumed.next(9);
    expect(received.map((event) => event.data)).toEqual([...held, 'meanwhile']);
    expect(received.slice(0, 8).map((event) => event.id)).toEqual(ids);
    // Then it is a subscriber as the others: the next update, once.
    await publish({ topic: TOPIC, data: 'live' }, await publisher());
    expect((await resumed.next(10)).slice(9).map((event) => event.data)).toEqual(['live']);
    // From an id in the middle: the updates after it only.
    const middle = await listen([TOPIC], { lastEventId: ids[3] });
    expect((await middle.next(6)).map((event) => event.data)).toEqual([...held.slice(4), 'meanwhile', 'live']);
  });

  it('ends its subscriptions when the app closes', async () => {
    await listen(['*']);
    const started = Date.now();
    await hub.close();
    expect(Date.now() - started).toBeLessThan(2_000);
    // Closed once: afterEach closes it again harmlessly.
    hub = Fastify();
  });
});
