/**
 * Publishing writes to the built-in Mercure hub, on SQLite and PostgreSQL, with a real `EventSource` subscribed to a
 * listening app: one update per written item after its commit, topic its absolute IRI, data exactly what its GET
 * renders (`{"@id", "@type"}` after a DELETE), nested items first; nothing for a write refused by a rule or by
 * validation, nor for one rolled back; the `Link` discovery header on every response of the API.
 */
import { afterEach, beforeEach, describe, expect, inject, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { ApiError, defineResource, NotBlank } from '@resource-api/core';
import { testDatabases } from '@resource-api/core/testing';
import { listen } from './listening-app.js';
import { subscribe, type Subscriber } from './subscriber.js';

const Author = defineResource({
  name: 'Author',
  fields: { name: { type: 'string' } },
  mercure: true,
});

const Book = defineResource({
  name: 'Book',
  fields: {
    title: { type: 'string', constraints: [NotBlank()] },
    author: { toOne: 'Author', nullable: true, cascadePersist: true },
    // Left out of updates: they are rendered for an anonymous caller.
    secret: { type: 'string', nullable: true, security: "is_granted('ROLE_ADMIN')" },
    pages: { type: 'integer', default: 0, groups: ['hidden'] },
  },
  mercure: { topics: (book) => [`/api/shelves/${book.title.length}`] },
  operations: [
    'get',
    'getCollection',
    'post',
    'patch',
    'delete',
    // A write refused by its rule: nobody is an admin here.
    { kind: 'put', security: "is_granted('ROLE_ADMIN')" },
  ],
});

/** A resource whose writes fail after the row is written: `afterWrite` throws, the transaction rolls back. */
const Ledger = defineResource({
  name: 'Ledger',
  fields: { entry: { type: 'string' } },
  mercure: true,
  hooks: {
    afterWrite: (item) => {
      if (item.entry === 'undo') throw new ApiError('CONFLICT', 'Rolled back on purpose.');
    },
  },
});

/** No `mercure`: nothing is published. */
const Quiet = defineResource({ name: 'Quiet', fields: { text: { type: 'string' } } });

/** Private updates, with an event type and an operation that opts out. */
const Memo = defineResource({
  name: 'Memo',
  fields: { text: { type: 'string' } },
  mercure: { private: true, type: 'memo' },
  operations: ['get', 'post', { kind: 'patch', mercure: false }],
});

describe.each(testDatabases(inject('postgresUrl'), inject('mariadbUrl')))('publishing writes on $name', (database) => {
  let app: FastifyInstance;
  let origin: string;
  const subscribers: Subscriber[] = [];
  beforeEach(async () => {
    ({ app, origin } = await listen({
      database,
      resources: [Author, Book, Ledger, Quiet, Memo],
      mercure: { jwtSecret: 'a-mercure-secret-that-is-long-enough', heartbeat: 0 },
    }));
  });
  afterEach(async () => {
    for (const subscriber of subscribers.splice(0)) subscriber.close();
    await app.close();
  });
  const hub = () => `${origin}/.well-known/mercure`;
  const listenTo = async (topics: string[], options?: Parameters<typeof subscribe>[2]) => {
    const subscriber = await subscribe(hub(), topics, options);
    subscribers.push(subscriber);
    return subscriber;
  };
  const send = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${origin}${path}`, {
      method,
      headers: {
        accept: 'application/ld+json',
        ...(body === undefined
          ? {}
          : { 'content-type': method === 'PATCH' ? 'application/merge-patch+json' : 'application/ld+json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: text === '' ? undefined : JSON.parse(text) };
  };

  it('publishes each create, update and delete once it committed: topic the absolute IRI, data what GET renders', async () => {
    const subscriber = await listenTo([`${origin}/api/books/{id}`]);
    const created = await send('POST', '/api/books', { title: 'Dune', secret: 'hidden' });
    expect(created.status).toBe(201);
    const [first] = await subscriber.next(1);
    const item = await send('GET', created.body['@id']);
    expect(JSON.parse(first!.data)).toEqual(item.body);
    expect(JSON.parse(first!.data)).not.toHaveProperty('secret');
    expect(first!.id).toMatch(/^urn:uuid:[0-9a-f-]{36}$/);

    await send('PATCH', created.body['@id'], { title: 'Dune Messiah' });
    const [, second] = await subscriber.next(2);
    expect(JSON.parse(second!.data)).toEqual((await send('GET', created.body['@id'])).body);
    expect(JSON.parse(second!.data).title).toBe('Dune Messiah');

    expect((await send('DELETE', created.body['@id'])).status).toBe(204);
    const [, , third] = await subscriber.next(3);
    expect(JSON.parse(third!.data)).toEqual({ '@id': created.body['@id'], '@type': 'Book' });
  });

  it('delivers to exact topics, URI templates and declared topics, several per subscription', async () => {
    const all = await listenTo(['*']);
    const created = await send('POST', '/api/books', { title: 'Emma' });
    // Its update delivered before the others subscribe (on PostgreSQL it comes back through the database).
    await all.next(1);
    const exact = await listenTo([`${origin}${created.body['@id']}`, `${origin}/api/authors/{id}`]);
    const declared = await listenTo([`${origin}/api/shelves/{length}`]);
    const other = await listenTo([`${origin}/api/books/999999`]);
    await send('PATCH', created.body['@id'], { title: 'Emma!' });
    expect(JSON.parse((await exact.next(1))[0]!.data).title).toBe('Emma!');
    expect(JSON.parse((await declared.next(1))[0]!.data).title).toBe('Emma!');
    // The marker: a write other's topic names; had the PATCH reached it, it would come first.
    const marker = await send('POST', '/api/authors', { name: 'marker' });
    const author = await listenTo([`${origin}${marker.body['@id']}`]);
    await send('PATCH', marker.body['@id'], { name: 'seen' });
    await author.next(1);
    expect(other.received).toEqual([]);
  });

  it('publishes the items written through a relation first, each with its own update', async () => {
    const subscriber = await listenTo(['*']);
    const created = await send('POST', '/api/books', { title: 'Nested', author: { name: 'Frank' } });
    expect(created.status).toBe(201);
    const [author, book] = await subscriber.next(2);
    const authorIri = created.body.author;
    expect(JSON.parse(author!.data)).toEqual((await send('GET', authorIri)).body);
    expect(JSON.parse(book!.data)).toEqual((await send('GET', created.body['@id'])).body);
  });

  it('publishes nothing for a write refused by a rule, by validation, or rolled back, and nothing for resources without mercure', async () => {
    const subscriber = await listenTo(['*']);
    const created = await send('POST', '/api/books', { title: 'Kept' });
    // Its update first (on PostgreSQL it comes back through the database, after the response).
    await subscriber.next(1);
    expect((await send('PUT', created.body['@id'], { title: 'Denied' })).status).toBe(401);
    expect((await send('PATCH', created.body['@id'], { title: '' })).status).toBe(400);
    expect((await send('POST', '/api/books', { title: '' })).status).toBe(400);
    expect((await send('POST', '/api/ledgers', { entry: 'undo' })).status).toBe(409);
    expect((await send('POST', '/api/quiets', { text: 'unheard' })).status).toBe(201);
    // Nothing changed: the refused writes left the item and the tables as they were.
    expect((await send('GET', created.body['@id'])).body.title).toBe('Kept');
    expect((await send('GET', '/api/ledgers')).body['hydra:totalItems']).toBe(0);
    // The next update is the marker's: none was published before it.
    const marker = await send('POST', '/api/ledgers', { entry: 'kept' });
    const [, second] = await subscriber.next(2);
    expect(JSON.parse(second!.data)['@id']).toBe(marker.body['@id']);
    expect(subscriber.received).toHaveLength(2);
  });

  it('sends updates in commit order, each once', async () => {
    const subscriber = await listenTo([`${origin}/api/authors/{id}`]);
    const ids: string[] = [];
    for (let index = 0; index < 5; index++)
      ids.push((await send('POST', '/api/authors', { name: `a${index}` })).body['@id']);
    // And concurrent writes: each arrives once.
    const concurrent = await Promise.all(
      Array.from({ length: 10 }, (_, index) => send('POST', '/api/authors', { name: `c${index}` })),
    );
    const received = await subscriber.next(15);
    const published = received.map((event) => JSON.parse(event.data)['@id'] as string);
    expect(published.slice(0, 5)).toEqual(ids);
    expect(published.slice(5).sort()).toEqual(concurrent.map((response) => response.body['@id']).sort());
    expect(new Set(received.map((event) => event.id)).size).toBe(15);
  });

  it('publishes GraphQL mutations as their REST twins', async () => {
    const subscriber = await listenTo([`${origin}/api/authors/{id}`]);
    const response = await fetch(`${origin}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'mutation { createAuthor(input: {name: "Ursula"}) { author { id } } }' }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('link')).toBe(`<${origin}/.well-known/mercure>; rel="mercure"`);
    const { data } = (await response.json()) as { data: { createAuthor: { author: { id: string } } } };
    const [event] = await subscriber.next(1);
    expect(JSON.parse(event!.data)).toEqual((await send('GET', data.createAuthor.author.id)).body);
  });

  it('announces the hub in a Link header on every response of the API, errors included', async () => {
    const link = `<${origin}/.well-known/mercure>; rel="mercure"`;
    const docs = `<${origin}/api/docs.jsonld>; rel="http://www.w3.org/ns/hydra/core#apiDocumentation"`;
    for (const path of ['/api/books', '/api/quiets', '/api/books/999', '/api', '/api/nothing-here']) {
      const response = await send('GET', path);
      expect(response.headers.get('link'), path).toBe(`${docs}, ${link}`);
    }
  });

  it('delivers private updates only to subscribers whose JWT allows their topic, with their event type', async () => {
    const { signHubToken } = await import('@resource-api/core');
    const secret = 'a-mercure-secret-that-is-long-enough';
    const allowed = await listenTo([`${origin}/api/memos/{id}`], {
      token: await signHubToken({ subscribe: [`${origin}/api/memos/{id}`] }, secret),
      types: ['memo'],
    });
    const otherTopic = await listenTo([`${origin}/api/memos/{id}`], {
      token: await signHubToken({ subscribe: [`${origin}/api/books/{id}`] }, secret),
      types: ['memo'],
    });
    const anonymous = await listenTo([`${origin}/api/memos/{id}`], { types: ['memo'] });
    const created = await send('POST', '/api/memos', { text: 'private' });
    const [event] = await allowed.next(1);
    expect(event!.type).toBe('memo');
    expect(JSON.parse(event!.data)['@id']).toBe(created.body['@id']);
    // The PATCH opts out; a second memo is the marker.
    await send('PATCH', created.body['@id'], { text: 'quiet' });
    await send('POST', '/api/memos', { text: 'second' });
    await allowed.next(2);
    expect(allowed.received).toHaveLength(2);
    expect(otherTopic.received).toEqual([]);
    expect(anonymous.received).toEqual([]);
  });
});

describe('the hub among the API scopes', () => {
  it('gets the production plugin’s CORS and security headers, as the other routes of the API', async () => {
    const [sqlite] = testDatabases(undefined);
    const { app, origin } = await listen({
      database: sqlite!,
      resources: [Author],
      production: { cors: { origin: ['http://admin.example'], credentials: true } },
    });
    try {
      const response = await fetch(`${origin}/.well-known/mercure?topic=*`, {
        headers: { origin: 'http://admin.example' },
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('access-control-allow-origin')).toBe('http://admin.example');
      expect(response.headers.get('access-control-allow-credentials')).toBe('true');
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect(response.headers.get('content-type')).toBe('text/event-stream');
      await response.body?.cancel();
    } finally {
      await app.close();
    }
  });
});
