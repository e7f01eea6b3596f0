/**
 * "Real-time updates" of the contract, black-box: a subscriber opens `GET /.well-known/mercure?topic=…` with a real
 * `EventSource` on a listening bookshop (SQLite and PostgreSQL) and receives each change of a book or a comment as its
 * GET renders it, a DELETE as `{"@id", "@type"}`; refused writes publish nothing; `Last-Event-ID` resumes; every
 * response names the hub; a GraphQL subscription (`updateBookSubscribe`, graphql-ws) gets the same changes. Then the
 * external-hub mode: the compiled bookshop and a hub each in a process of their own.
 */
import { type Database, openDatabase } from '@resource-api/core';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import { ensureBuilt, freePort, mainJs, root, type Started, startNode } from './compiled.js';
// The core's test subscriber: a real EventSource on a listening hub.
import { subscribe, type Subscriber } from '../../../packages/core/test/mercure/subscriber.js';
import { subscribeGraphQL } from '../../../packages/core/test/mercure/graphql-subscriber.js';
import { REDIS_URL, redisAvailable } from '../../../packages/core/test/redis.js';
import { ADMIN, databases, openBookshop, registerAndLogin, type TestUser } from './support.js';

type Shop = Awaited<ReturnType<typeof openBookshop>>;

describe.each(databases)('real-time updates on $name', (database) => {
  let shop: Shop;
  let origin: string;
  const subscribers: Subscriber[] = [];
  beforeEach(async () => {
    shop = await openBookshop(database);
    await shop.app.listen({ port: 0, host: '127.0.0.1' });
    const address = shop.app.server.address();
    origin = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  });
  afterEach(async () => {
    for (const subscriber of subscribers.splice(0)) subscriber.close();
    // A connection a client opens while the app closes would hold the close until it times out: cut them all.
    const cutting = setInterval(() => shop.app.server.closeAllConnections(), 50);
    try {
      await shop.close();
    } finally {
      clearInterval(cutting);
    }
  });
  const listen = async (topics: string[], options?: Parameters<typeof subscribe>[2]) => {
    const subscriber = await subscribe(`${origin}/.well-known/mercure`, topics, options);
    subscribers.push(subscriber);
    return subscriber;
  };
  const send = async (
    method: string,
    path: string,
    body?: unknown,
    token?: string,
    // biome-ignore lint/suspicious/noExplicitAny: JSON bodies read freely by the tests
  ): Promise<{ status: number; headers: Headers; body: any }> => {
    const response = await fetch(`${origin}${path}`, {
      method,
      headers: {
        accept: 'application/ld+json',
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(body === undefined
          ? {}
          : { 'content-type': method === 'PATCH' ? 'application/merge-patch+json' : 'application/ld+json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: text === '' ? undefined : JSON.parse(text) };
  };
  const author = async () =>
    (await send('POST', '/api/authors', { name: 'Mary Shelley' }, shop.adminToken)).body['@id'];

  it('pushes each created, updated and deleted book, as its GET renders it', async () => {
    const books = await listen([`${origin}/api/books/{id}`]);
    const created = await send('POST', '/api/books', { title: 'Frankenstein', author: await author() });
    expect(created.status).toBe(201);
    const iri = created.body['@id'];
    const [first] = await books.next(1);
    expect(JSON.parse(first!.data)).toEqual((await send('GET', iri)).body);
    await send('PATCH', iri, { title: 'Frankenstein; or, The Modern Prometheus' });
    const [, second] = await books.next(2);
    expect(JSON.parse(second!.data)).toEqual((await send('GET', iri)).body);
    expect((await send('DELETE', iri)).status).toBe(204);
    const [, , third] = await books.next(3);
    expect(JSON.parse(third!.data)).toEqual({ '@id': iri, '@type': 'Book' });
  });

  it('pushes comments, their soft delete as a deletion', async () => {
    const user: TestUser = await registerAndLogin(shop.app, 'reader@example.com');
    const comments = await listen([`${origin}/api/comments/{id}`]);
    const created = await send('POST', '/api/comments', { content: 'A haunting read.' }, user.token);
    expect(created.status).toBe(201);
    const iri = created.body['@id'];
    expect(JSON.parse((await comments.next(1))[0]!.data)).toEqual((await send('GET', iri)).body);
    await send('PATCH', iri, { content: 'A haunting read, twice over.' }, user.token);
    expect(JSON.parse((await comments.next(2))[1]!.data).content).toBe('A haunting read, twice over.');
    expect((await send('DELETE', iri, undefined, user.token)).status).toBe(204);
    expect(JSON.parse((await comments.next(3))[2]!.data)).toEqual({ '@id': iri, '@type': 'Comment' });
  });

  it('publishes nothing for a refused write', async () => {
    const owner = await registerAndLogin(shop.app, 'owner@example.com');
    const other = await registerAndLogin(shop.app, 'other@example.com');
    const everything = await listen([`${origin}/api/books/{id}`, `${origin}/api/comments/{id}`]);
    const comment = (await send('POST', '/api/comments', { content: 'Mine, all mine.' }, owner.token)).body['@id'];
    const book = (await send('POST', '/api/books', { title: 'Valperga', author: await author() })).body['@id'];
    // Their two updates first (on PostgreSQL they come back through the database, after the responses).
    await everything.next(2);
    expect((await send('POST', '/api/comments', { content: 'Anonymous words.' })).status).toBe(401);
    expect((await send('PATCH', comment, { content: 'Not my comment at all.' }, other.token)).status).toBe(403);
    expect((await send('PATCH', comment, { content: 'short' }, owner.token)).status).toBe(400);
    expect((await send('PATCH', book, { title: 'V' })).status).toBe(400);
    expect((await send('POST', '/api/books', { title: 'No author' })).status).toBe(400);
    // Unchanged, and the next update is the marker's: nothing was published before it.
    expect((await send('GET', comment)).body.content).toBe('Mine, all mine.');
    expect((await send('GET', book)).body.title).toBe('Valperga');
    await send('PATCH', book, { title: 'Valperga, a marker' });
    const [, , third] = await everything.next(3);
    expect(JSON.parse(third!.data).title).toBe('Valperga, a marker');
    expect(everything.received).toHaveLength(3);
  });

  it('resumes with Last-Event-ID without losing the updates the hub still holds', async () => {
    const writer = await author();
    const books = await listen([`${origin}/api/books/{id}`]);
    const first = (await send('POST', '/api/books', { title: 'Mathilda', author: writer })).body['@id'];
    const [seen] = await books.next(1);
    books.close();
    // While the subscriber is away.
    await send('PATCH', first, { title: 'Mathilda, revised' });
    const second = (await send('POST', '/api/books', { title: 'Lodore', author: writer })).body['@id'];
    const back = await listen([`${origin}/api/books/{id}`], { lastEventId: seen!.id });
    const missed = await back.next(2);
    expect(missed.map((event) => [JSON.parse(event.data)['@id'], JSON.parse(event.data).title])).toEqual([
      [first, 'Mathilda, revised'],
      [second, 'Lodore'],
    ]);
  });

  it('pushes a book’s changes to a GraphQL subscription (updateBookSubscribe, graphql-ws), a deletion as null', async () => {
    const created = await send('POST', '/api/books', { title: 'Frankenstein', author: await author() });
    const iri = created.body['@id'];
    // Its own update has left before the subscription starts (on PostgreSQL it comes back through the database).
    await new Promise((resolve) => setTimeout(resolve, 200));
    const client = createClient({
      url: `${origin.replace('http', 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      retryAttempts: 0,
    });
    const { received, next, stop } = subscribeGraphQL(
      client,
      `subscription ($id: ID!) {
          updateBookSubscribe(input: {id: $id, clientSubscriptionId: "shelf"}) { book { id title } clientSubscriptionId }
        }`,
      { id: iri },
    );
    try {
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect((await send('PATCH', iri, { title: 'The Modern Prometheus' })).status).toBe(200);
      expect((await next(1))[0]).toEqual({
        data: {
          updateBookSubscribe: { book: { id: iri, title: 'The Modern Prometheus' }, clientSubscriptionId: 'shelf' },
        },
      });
      // A refused write (a title the validation refuses) sends nothing; a deletion sends the book as null.
      const refused = await send('PATCH', iri, { title: '' });
      expect(refused.status, JSON.stringify(refused.body)).toBeGreaterThanOrEqual(400);
      expect(refused.status).toBeLessThan(500);
      expect((await send('DELETE', iri, undefined, shop.adminToken)).status).toBe(204);
      const [, deleted] = await next(2);
      expect(deleted).toEqual({ data: { updateBookSubscribe: { book: null, clientSubscriptionId: 'shelf' } } });
      expect(received).toHaveLength(2);
    } finally {
      stop();
      await client.dispose();
    }
  });

  it('names the hub in the Link header of every API response', async () => {
    for (const path of ['/api', '/api/books', '/api/books/999', '/api/docs.jsonld']) {
      const response = await send('GET', path);
      expect(response.headers.get('link'), path).toContain(`<${origin}/.well-known/mercure>; rel="mercure"`);
    }
    const admin = await send('POST', '/api/auth', { email: ADMIN.email, password: ADMIN.password });
    expect(admin.headers.get('link')).toContain('rel="mercure"');
  });
});

describe('an external Mercure hub, in a process of its own', () => {
  const SECRET = 'the-mercure-secret-of-the-bookshop-tests-0123';
  let hub: Started | undefined;
  let shop: Started | undefined;
  let hubUrl = '';
  let shopUrl = '';

  async function answers(started: Started, url: string): Promise<void> {
    const deadline = Date.now() + 20_000;
    for (;;) {
      if (started.child.exitCode !== null)
        throw new Error(`The process exited with ${started.child.exitCode}:\n${started.output()}`);
      try {
        await fetch(url);
        return;
      } catch {
        if (Date.now() > deadline) throw new Error(`No answer within 20 s:\n${started.output()}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  }

  beforeAll(async () => {
    await ensureBuilt();
    const hubPort = await freePort();
    hubUrl = `http://127.0.0.1:${hubPort}/.well-known/mercure`;
    hub = startNode(`${root}/examples/bookshop/dist/mercure-hub.js`, {
      HOST: '127.0.0.1',
      PORT: String(hubPort),
      MERCURE_JWT_SECRET: SECRET,
      LOG_LEVEL: 'warn',
    });
    await answers(hub, `${hubUrl}?topic=none`);
    const shopPort = await freePort();
    shopUrl = `http://127.0.0.1:${shopPort}`;
    shop = startNode(mainJs, {
      HOST: '127.0.0.1',
      PORT: String(shopPort),
      DATABASE_URL: 'sqlite::memory:',
      JWT_SECRET: 'a-real-time-test-secret-that-is-long-enough-0123',
      LOG_LEVEL: 'warn',
      MERCURE_URL: hubUrl,
      MERCURE_PUBLIC_URL: hubUrl,
      MERCURE_JWT_SECRET: SECRET,
    });
    await answers(shop, `${shopUrl}/api`);
  }, 150_000);

  afterAll(async () => {
    for (const started of [shop, hub])
      if (started && started.child.exitCode === null && started.child.signalCode === null) {
        started.child.kill('SIGTERM');
        await started.exit;
      }
  });

  it('sends the bookshop’s updates to the hub, whose subscribers receive them; responses name the hub', async () => {
    const subscriber = await subscribe(hubUrl, [
      `${shopUrl}/api/authors/{id}`,
      `${shopUrl}/api/comments/{id}`,
      `${shopUrl}/api/books/{id}`,
    ]);
    try {
      const created = await fetch(`${shopUrl}/api/users`, {
        method: 'POST',
        headers: { 'content-type': 'application/ld+json' },
        body: JSON.stringify({ email: 'far@example.com', plainPassword: 'a-long-enough-password' }),
      });
      expect(created.status).toBe(201);
      expect(created.headers.get('link')).toContain(`<${hubUrl}>; rel="mercure"`);
      const login = await fetch(`${shopUrl}/api/auth`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'far@example.com', password: 'a-long-enough-password' }),
      });
      const { token } = (await login.json()) as { token: string };
      const comment = await fetch(`${shopUrl}/api/comments`, {
        method: 'POST',
        headers: { 'content-type': 'application/ld+json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ content: 'Sent through the hub.' }),
      });
      expect(comment.status).toBe(201);
      const body = (await comment.json()) as { '@id': string };
      const [event] = await subscriber.next(1, 10_000);
      expect(JSON.parse(event!.data)).toEqual(await (await fetch(`${shopUrl}${body['@id']}`)).json());
      // Users are not pushed: the one event is the comment's.
      expect(subscriber.received).toHaveLength(1);
    } finally {
      subscriber.close();
    }
  });
});

/**
 * The servers two processes share a database on: PostgreSQL, whose LISTEN/NOTIFY carries the updates, and MariaDB,
 * which has none: there they travel through Redis (`MERCURE_REDIS_URL`).
 */
const fanOutServers = [
  { title: 'PostgreSQL', url: inject('postgresUrl'), env: {} as Record<string, string>, dropForce: ' WITH (FORCE)' },
  {
    title: 'MariaDB',
    url: redisAvailable ? inject('mariadbUrl') : '',
    env: { MERCURE_REDIS_URL: REDIS_URL } as Record<string, string>,
    dropForce: '',
  },
].filter((server) => server.url);

describe.each(fanOutServers)('two bookshops on one $title database, each in a process of its own', (server) => {
  const url = new URL(server.url!);
  const name = `bookshop_fan_out_${process.pid}`;
  let admin: Database;
  const started: Started[] = [];
  const origins: string[] = [];

  async function answers(process: Started, address: string): Promise<void> {
    const deadline = Date.now() + 20_000;
    for (;;) {
      if (process.child.exitCode !== null)
        throw new Error(`The bookshop exited with ${process.child.exitCode}:\n${process.output()}`);
      try {
        await fetch(address);
        return;
      } catch {
        if (Date.now() > deadline) throw new Error(`No answer within 20 s:\n${process.output()}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  }

  beforeAll(async () => {
    await ensureBuilt();
    admin = await openDatabase({ url: url.toString() });
    await admin.knex.raw('DROP DATABASE IF EXISTS ??', [name]);
    await admin.knex.raw('CREATE DATABASE ??', [name]);
    const database = new URL(url.toString());
    database.pathname = `/${name}`;
    for (let index = 0; index < 2; index++) {
      const port = await freePort();
      const shop = startNode(mainJs, {
        HOST: '127.0.0.1',
        PORT: String(port),
        DATABASE_URL: database.toString(),
        JWT_SECRET: 'a-fan-out-test-secret-that-is-long-enough-0123',
        LOG_LEVEL: 'warn',
        ...server.env,
      });
      started.push(shop);
      origins.push(`http://127.0.0.1:${port}`);
      // One after the other: the first creates the tables.
      await answers(shop, `http://127.0.0.1:${port}/api`);
    }
  }, 150_000);

  afterAll(async () => {
    for (const shop of started)
      if (shop.child.exitCode === null && shop.child.signalCode === null) {
        shop.child.kill('SIGTERM');
        await shop.exit;
      }
    await admin.knex.raw(`DROP DATABASE IF EXISTS ??${server.dropForce}`, [name]);
    await admin.close();
  });

  it('delivers the writes made through one to a subscriber of the other, once each, in order', async () => {
    const [reader, writer] = origins as [string, string];
    const subscriber = await subscribe(`${reader}/.well-known/mercure`, ['*']);
    try {
      const registered = await fetch(`${writer}/api/users`, {
        method: 'POST',
        headers: { 'content-type': 'application/ld+json' },
        body: JSON.stringify({ email: 'writer@example.com', plainPassword: 'a-long-enough-password' }),
      });
      expect(registered.status).toBe(201);
      const login = await fetch(`${writer}/api/auth`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'writer@example.com', password: 'a-long-enough-password' }),
      });
      const { token } = (await login.json()) as { token: string };
      const written: string[] = [];
      for (const content of [
        'First, through the writer.',
        'Second, through the writer.',
        'Third, through the writer.',
      ]) {
        const response = await fetch(`${writer}/api/comments`, {
          method: 'POST',
          headers: { 'content-type': 'application/ld+json', authorization: `Bearer ${token}` },
          body: JSON.stringify({ content }),
        });
        expect(response.status).toBe(201);
        written.push(((await response.json()) as { '@id': string })['@id']);
      }
      const events = await subscriber.next(3, 10_000);
      expect(events.map((event) => JSON.parse(event.data)['@id'])).toEqual(written);
      const item = await (await fetch(`${reader}${written[0]}`)).json();
      expect(JSON.parse(events[0]!.data)).toEqual(item);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(subscriber.received).toHaveLength(3);
    } finally {
      subscriber.close();
    }
  });
});
