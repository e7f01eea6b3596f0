/**
 * The external-hub mode: the app POSTs its updates to another hub (here the built-in hub of another Fastify server,
 * `mercureHub` alone), with a publisher JWT it signs; the `Link` header names that hub. The bookshop's tests run the
 * hub in a process of its own (examples/bookshop/test/real-time.test.ts).
 */
import { afterEach, beforeEach, describe, expect, inject, it } from 'vitest';
import Fastify, { type FastifyInstance } from 'fastify';
import { defineResource, mercureHub } from '@resource-api/core';
import { testDatabases } from '@resource-api/core/testing';
import { listen } from './listening-app.js';
import { subscribe, type Subscriber } from './subscriber.js';

const SECRET = 'the-shared-secret-of-hub-and-app-0123456789';
const Author = defineResource({ name: 'Author', fields: { name: { type: 'string' } }, mercure: true });

describe.each(testDatabases(inject('postgresUrl'), inject('mariadbUrl')))('an external hub, on $name', (database) => {
  let hub: FastifyInstance;
  let hubUrl: string;
  const closers: (() => Promise<unknown> | void)[] = [];
  beforeEach(async () => {
    hub = Fastify({ forceCloseConnections: true });
    await hub.register(mercureHub, { jwtSecret: SECRET, heartbeat: 0 });
    await hub.listen({ port: 0, host: '127.0.0.1' });
    const address = hub.server.address();
    hubUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/.well-known/mercure`;
  });
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
    await hub.close();
  });
  const subscriber = async (topics: string[]): Promise<Subscriber> => {
    const opened = await subscribe(hubUrl, topics);
    closers.push(() => opened.close());
    return opened;
  };

  it('sends each update to the hub, in commit order, and announces the hub in the Link header', async () => {
    const { app, origin } = await listen({
      database,
      resources: [Author],
      mercure: { url: hubUrl, jwtSecret: SECRET },
    });
    closers.push(() => app.close());
    const received = await subscriber([`${origin}/api/authors/{id}`]);
    const ids: string[] = [];
    for (const name of ['Ann', 'Bob', 'Cid']) {
      const response = await fetch(`${origin}/api/authors`, {
        method: 'POST',
        headers: { 'content-type': 'application/ld+json' },
        body: JSON.stringify({ name }),
      });
      expect(response.status).toBe(201);
      expect(response.headers.get('link')).toContain(`<${hubUrl}>; rel="mercure"`);
      ids.push(((await response.json()) as { '@id': string })['@id']);
    }
    const events = await received.next(3);
    expect(events.map((event) => JSON.parse(event.data)['@id'])).toEqual(ids);
    const item = await (await fetch(`${origin}${ids[0]}`)).json();
    expect(JSON.parse(events[0]!.data)).toEqual(item);
  });

  it('answers the write all the same when the hub refuses its updates, and logs why', async () => {
    const logged: Record<string, unknown>[] = [];
    const { app, origin } = await listen({
      database,
      resources: [Author],
      mercure: {
        url: hubUrl,
        jwtSecret: 'not-the-secret-of-the-hub-at-all-0123456789',
        publicUrl: 'https://hub.example.com/.well-known/mercure',
      },
      logged,
    });
    closers.push(() => app.close());
    const received = await subscriber(['*']);
    const response = await fetch(`${origin}/api/authors`, {
      method: 'POST',
      headers: { 'content-type': 'application/ld+json' },
      body: JSON.stringify({ name: 'Unheard' }),
    });
    expect(response.status).toBe(201);
    expect(response.headers.get('link')).toContain('<https://hub.example.com/.well-known/mercure>; rel="mercure"');
    await expect
      .poll(() => logged.map((line) => line.msg))
      .toContain('An update could not be published to the Mercure hub.');
    const line = logged.find((entry) => entry.msg === 'An update could not be published to the Mercure hub.')!;
    expect(JSON.stringify(line.err)).toContain('The Mercure hub answered 401');
    expect(received.received).toEqual([]);
  });

  it('refuses an external hub without the secret to sign with, at start-up', async () => {
    await expect(listen({ database, resources: [Author], mercure: { url: hubUrl } })).rejects.toThrow(
      /"mercure.url" \(an external hub\) needs "mercure.jwtSecret"/,
    );
  });
});
