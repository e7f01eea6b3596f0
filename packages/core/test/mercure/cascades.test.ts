/**
 * Items written by the database's own cascades are published too (issue 38, point 2), on SQLite and PostgreSQL:
 * deleting an item publishes a delete for every item its `onDelete: 'cascade'` relations take (deepest first, then
 * the item), and the new version of every item that stays but changed (a link `'set null'`, a many-to-many list that
 * named a deleted item). A delete refused by a `restrict` relation publishes nothing and changes nothing.
 */
import { afterEach, beforeEach, describe, expect, inject, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { defineResource } from '@resource-api/core';
import { testDatabases } from '@resource-api/core/testing';
import { listen } from './listening-app.js';
import { subscribe, type Subscriber } from './subscriber.js';

const Publisher = defineResource({ name: 'Publisher', fields: { name: { type: 'string' } }, mercure: true });

const Series = defineResource({
  name: 'Series',
  plural: 'series',
  fields: {
    name: { type: 'string' },
    publisher: { toOne: 'Publisher', onDelete: 'cascade' },
    labels: { toMany: 'Label', inversedBy: 'series' },
  },
  mercure: true,
});

/** Taken two levels down; its topics are worked out from the item, which is gone once the delete committed. */
const Volume = defineResource({
  name: 'Volume',
  fields: { title: { type: 'string' }, series: { toOne: 'Series', onDelete: 'cascade' } },
  mercure: { topics: (volume) => [`/api/shelves/${volume.title}`] },
});

/** Stays, its link set to null. */
const Review = defineResource({
  name: 'Review',
  fields: { text: { type: 'string' }, series: { toOne: 'Series', nullable: true, onDelete: 'set null' } },
  mercure: true,
});

/** The inverse side of a many-to-many: its list shrinks when a series goes. */
const Label = defineResource({
  name: 'Label',
  fields: { name: { type: 'string' }, series: { toMany: 'Series', mappedBy: 'labels' } },
  mercure: true,
});

/** Taken by the cascade, not published (no `mercure`). */
const Draft = defineResource({
  name: 'Draft',
  fields: { text: { type: 'string' }, series: { toOne: 'Series', onDelete: 'cascade' } },
});

/** Holds its publisher: deleting that publisher is refused. */
const Contract = defineResource({
  name: 'Contract',
  fields: { clause: { type: 'string' }, publisher: { toOne: 'Publisher', nullable: true, onDelete: 'restrict' } },
});

describe.each(testDatabases(inject('postgresUrl'), inject('mariadbUrl')))(
  'publishing what cascades write on $name',
  (database) => {
    let app: FastifyInstance;
    let origin: string;
    const subscribers: Subscriber[] = [];
    beforeEach(async () => {
      ({ app, origin } = await listen({
        database,
        resources: [Publisher, Series, Volume, Review, Label, Draft, Contract],
        mercure: { heartbeat: 0 },
      }));
    });
    afterEach(async () => {
      for (const subscriber of subscribers.splice(0)) subscriber.close();
      await app.close();
    });
    const send = async (method: string, path: string, body?: unknown) => {
      const response = await fetch(`${origin}${path}`, {
        method,
        headers: {
          accept: 'application/ld+json',
          ...(body === undefined ? {} : { 'content-type': 'application/ld+json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await response.text();
      return { status: response.status, body: text === '' ? undefined : JSON.parse(text) };
    };
    const create = async (path: string, body: unknown): Promise<string> => {
      const created = await send('POST', path, body);
      expect(created.status).toBe(201);
      return created.body['@id'];
    };
    /**
     * A subscriber to every topic that hears nothing of the writes before it. Updates leave once their write answered
     * (on PostgreSQL, back through the database), so those of the writes just made may still be on their way: a write
     * of its own, once heard, came after them all (updates leave in commit order), and what came before it is set aside.
     */
    const listenToAll = async () => {
      const subscriber = await subscribe(`${origin}/.well-known/mercure`, ['*']);
      subscribers.push(subscriber);
      const sync = await create('/api/publishers', { name: 'sync' });
      while (!subscriber.received.some((event) => JSON.parse(event.data)['@id'] === sync))
        await subscriber.next(subscriber.received.length + 1);
      subscriber.clear();
      return subscriber;
    };

    it('publishes the deletes a cascade makes, deepest first, and the new versions of the items it changes', async () => {
      const publisher = await create('/api/publishers', { name: 'Gollancz' });
      const other = await create('/api/publishers', { name: 'Tor' });
      const label = await create('/api/labels', { name: 'classic' });
      const series = await create('/api/series', { name: 'Dune', publisher, labels: [label] });
      const kept = await create('/api/series', { name: 'Mistborn', publisher: other, labels: [label] });
      const volume = await create('/api/volumes', { title: 'Messiah', series });
      const review = await create('/api/reviews', { text: 'Grand', series });
      await create('/api/drafts', { text: 'unpublished', series });
      const subscriber = await listenToAll();
      const volumeShelf = await subscribe(`${origin}/.well-known/mercure`, [`${origin}/api/shelves/Messiah`]);
      subscribers.push(volumeShelf);

      expect((await send('DELETE', publisher)).status).toBe(204);
      const events = await subscriber.next(5);
      const data = events.map((event) => JSON.parse(event.data));
      // Deepest first: the volume, then the series, then the items that stay, then the publisher.
      expect(data.slice(0, 2)).toEqual([
        { '@id': volume, '@type': 'Volume' },
        { '@id': series, '@type': 'Series' },
      ]);
      // The items that stay, as their GET now renders them (any order between them).
      const changed = data.slice(2, 4).sort((a, b) => String(a['@id']).localeCompare(String(b['@id'])));
      expect(changed).toEqual(
        [(await send('GET', label)).body, (await send('GET', review)).body].sort((a, b) =>
          String(a['@id']).localeCompare(String(b['@id'])),
        ),
      );
      expect(changed.find((item) => item['@id'] === review).series ?? null).toBeNull();
      expect(changed.find((item) => item['@id'] === label).series).toEqual([kept]);
      expect(data[4]).toEqual({ '@id': publisher, '@type': 'Publisher' });
      // The volume's declared topic, worked out from the volume as it was before the delete.
      expect(JSON.parse((await volumeShelf.next(1))[0]!.data)).toEqual({ '@id': volume, '@type': 'Volume' });
      // Nothing more: the draft (no mercure) was taken silently, the other series was not touched.
      const marker = await create('/api/publishers', { name: 'marker' });
      const after = await subscriber.next(6);
      expect(JSON.parse(after[5]!.data)['@id']).toBe(marker);
      expect((await send('GET', '/api/drafts')).body['hydra:totalItems']).toBe(0);
      expect((await send('GET', kept)).status).toBe(200);
    });

    it('publishes nothing, and deletes nothing, when a restrict relation refuses the delete', async () => {
      const publisher = await create('/api/publishers', { name: 'Ace' });
      const series = await create('/api/series', { name: 'Foundation', publisher });
      await create('/api/contracts', { clause: 'exclusive', publisher });
      const subscriber = await listenToAll();
      expect((await send('DELETE', publisher)).status).toBe(409);
      expect((await send('GET', series)).status).toBe(200);
      const marker = await create('/api/publishers', { name: 'marker' });
      const [event] = await subscriber.next(1);
      expect(JSON.parse(event!.data)['@id']).toBe(marker);
      expect(subscriber.received).toHaveLength(1);
    });

    it('a deletion without anything to cascade publishes the item alone', async () => {
      const label = await create('/api/labels', { name: 'alone' });
      const subscriber = await listenToAll();
      expect((await send('DELETE', label)).status).toBe(204);
      const [event] = await subscriber.next(1);
      expect(JSON.parse(event!.data)).toEqual({ '@id': label, '@type': 'Label' });
    });
  },
);
