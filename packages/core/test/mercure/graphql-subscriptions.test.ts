/**
 * GraphQL subscriptions (`updateBookSubscribe`) with the `graphql-ws` client over WebSocket, on SQLite and
 * PostgreSQL: fed by the same committed writes as the Mercure hub, each update read again as the subscriber — the item
 * GET's rule checked again for every update, the fields it may not see null — a deleted item null.
 */
import { afterEach, beforeEach, describe, expect, inject, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { defineResource, printGraphQLSchema, buildMetadata } from '@resource-api/core';
import { testDatabases } from '@resource-api/core/testing';
import { subscribeGraphQL } from './graphql-subscriber.js';
import { listen } from './listening-app.js';

const Book = defineResource({
  name: 'Book',
  fields: {
    title: { type: 'string' },
    // Nobody is an admin here: the field is null in every payload.
    secret: { type: 'string', nullable: true, security: "is_granted('ROLE_ADMIN')" },
  },
  mercure: true,
  operations: [
    // A rule on the item: a book titled "hidden" may not be read, in a query or in an update.
    { kind: 'get', security: "object.title != 'hidden'" },
    'getCollection',
    'post',
    'patch',
    'delete',
  ],
});

/** Not published: no subscription. */
const Note = defineResource({ name: 'Note', fields: { text: { type: 'string' } } });

interface Next {
  data?: {
    updateBookSubscribe: {
      book: { id: string; title: string; secret: string | null } | null;
      clientSubscriptionId: string | null;
    };
  };
  errors?: readonly { message: string }[];
}

describe.each(testDatabases(inject('postgresUrl'), inject('mariadbUrl')))(
  'GraphQL subscriptions on $name',
  (database) => {
    let app: FastifyInstance;
    let origin: string;
    let client: Client;
    beforeEach(async () => {
      ({ app, origin } = await listen({ database, resources: [Book, Note], mercure: { heartbeat: 0 } }));
      client = createClient({
        url: `${origin.replace('http', 'ws')}/graphql`,
        webSocketImpl: WebSocket,
        retryAttempts: 0,
      });
    });
    afterEach(async () => {
      await client.dispose();
      await app.close();
    });
    const send = async (method: string, path: string, body?: unknown) => {
      const response = await fetch(`${origin}${path}`, {
        method,
        headers: { 'content-type': method === 'PATCH' ? 'application/merge-patch+json' : 'application/ld+json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const answer = (response.status === 204 ? undefined : await response.json()) as { '@id': string };
      return { status: response.status, body: answer };
    };
    /** Subscribes to a book; `next(n)` resolves once `n` results arrived. */
    function subscribeTo(id: string, clientSubscriptionId = 'sub-1') {
      return subscribeGraphQL<Next>(
        client,
        `subscription ($id: ID!, $client: String) {
          updateBookSubscribe(input: {id: $id, clientSubscriptionId: $client}) { book { id title secret } clientSubscriptionId }
        }`,
        { id, client: clientSubscriptionId },
      );
    }
    /** The error a `book(id:)` query answers for this item, for the same (anonymous) caller. */
    const queryError = async (id: string) => {
      const response = await fetch(`${origin}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: 'query ($id: ID!) { book(id: $id) { title } }', variables: { id } }),
      });
      return ((await response.json()) as { errors?: { message: string }[] }).errors?.[0]?.message;
    };
    /** Waits for the subscription to be live: a write published after it is then delivered. */
    const settle = () => new Promise((resolve) => setTimeout(resolve, 200));

    it('delivers each update of the item as a query of it reads it, with the clientSubscriptionId', async () => {
      const created = await send('POST', '/api/books', { title: 'Dune', secret: 's' });
      // Its own update delivered first (on PostgreSQL it comes back through the database, after the response).
      await settle();
      const subscription = subscribeTo(created.body['@id'], 'mine');
      await settle();
      await send('PATCH', created.body['@id'], { title: 'Dune Messiah' });
      const [first] = await subscription.next(1);
      expect(first).toEqual({
        data: {
          updateBookSubscribe: {
            book: { id: created.body['@id'], title: 'Dune Messiah', secret: null },
            clientSubscriptionId: 'mine',
          },
        },
      });
      // Another book's writes do not reach it.
      const other = await send('POST', '/api/books', { title: 'Emma' });
      await send('PATCH', other.body['@id'], { title: 'Emma!' });
      await send('DELETE', created.body['@id']);
      const [, deleted] = await subscription.next(2);
      expect(deleted).toEqual({ data: { updateBookSubscribe: { book: null, clientSubscriptionId: 'mine' } } });
      expect(subscription.received).toHaveLength(2);
      subscription.stop();
    });

    it('checks the item GET’s rule again for every update', async () => {
      const created = await send('POST', '/api/books', { title: 'Shown' });
      await settle();
      const subscription = subscribeTo(created.body['@id']);
      await settle();
      await send('PATCH', created.body['@id'], { title: 'hidden' });
      await send('PATCH', created.body['@id'], { title: 'Shown again' });
      const [denied, shown] = await subscription.next(2);
      // What a query of the hidden book answers this caller (anonymous: a 401, as for any item its rule refuses it).
      await send('PATCH', created.body['@id'], { title: 'hidden' });
      const refusal = await queryError(created.body['@id']);
      expect(refusal).toBe('Full authentication is required to access this resource.');
      expect(denied!.errors?.[0]?.message).toBe(refusal);
      expect(denied!.data?.updateBookSubscribe ?? null).toBeNull();
      expect(shown!.data?.updateBookSubscribe.book?.title).toBe('Shown again');
      subscription.stop();
    });

    it('refuses a subscription to an item that does not exist or may not be read', async () => {
      const missing = subscribeTo('/api/books/999');
      const hidden = await send('POST', '/api/books', { title: 'hidden' });
      const denied = subscribeTo(hidden.body['@id']);
      await expect.poll(() => missing.failure() ?? missing.received[0]).toBeDefined();
      await expect.poll(() => denied.failure() ?? denied.received[0]).toBeDefined();
      // As a query of the item answers the same caller: an anonymous one learns nothing of whether it exists.
      expect(JSON.stringify(denied.failure() ?? denied.received)).toContain(
        String(await queryError(hidden.body['@id'])),
      );
      expect(JSON.stringify(missing.failure() ?? missing.received)).toContain('Full authentication is required');
    });

    it('names the subscriptions as API Platform does, for published resources only', () => {
      const sdl = printGraphQLSchema(buildMetadata({ resources: [Book, Note] }));
      expect(sdl).toContain('updateBookSubscribe(input: updateBookSubscriptionInput!): updateBookSubscriptionPayload');
      expect(sdl).toContain('input updateBookSubscriptionInput {\n  id: ID!\n  clientSubscriptionId: String\n}');
      expect(sdl).not.toContain('updateNoteSubscribe');
    });
  },
);
