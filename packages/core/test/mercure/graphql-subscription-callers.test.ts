/**
 * Who subscribes: a GraphQL subscription's caller is authenticated from the WebSocket upgrade's `Authorization`
 * header or the `connection_init` payload, and the item's rule is checked for that caller, as a query's is; a token
 * that does not verify refuses the connection.
 */
import { afterEach, beforeEach, describe, expect, inject, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { defineResource } from '@resource-api/core';
import { testDatabases } from '@resource-api/core/testing';
import { securityOptions, User } from '../security/fixtures.js';
import { listen } from './listening-app.js';

const Memo = defineResource({
  name: 'Memo',
  fields: { text: { type: 'string' } },
  mercure: true,
  operations: [{ kind: 'get', security: "is_granted('ROLE_USER')" }, 'post', 'patch'],
});

const QUERY = 'subscription ($id: ID!) { updateMemoSubscribe(input: {id: $id}) { memo { text } } }';

describe.each(testDatabases(inject('postgresUrl'), inject('mariadbUrl')).slice(0, 1))(
  'subscribing callers on $name',
  (database) => {
    let app: FastifyInstance;
    let origin: string;
    let token: string;
    beforeEach(async () => {
      ({ app, origin } = await listen({
        database,
        resources: [User, Memo],
        security: securityOptions(),
        mercure: { heartbeat: 0 },
      }));
      const registered = await fetch(`${origin}/api/users`, {
        method: 'POST',
        headers: { 'content-type': 'application/ld+json' },
        body: JSON.stringify({ email: 'reader@example.com', plainPassword: 'a-long-enough-password' }),
      });
      expect(registered.status).toBe(201);
      const user = await app.resourceApi.database.knex('user').where('email', 'reader@example.com').first();
      token = await app.resourceApi.issueToken({ ...user, id: Number(user.id) });
    });
    afterEach(() => app.close());

    /** The first result (or the error) of a subscription to the memo, with `connectionParams`. */
    async function first(memo: string, connectionParams?: Record<string, unknown>, write?: () => Promise<unknown>) {
      const client = createClient({
        url: `${origin.replace('http', 'ws')}/graphql`,
        webSocketImpl: WebSocket,
        retryAttempts: 0,
        ...(connectionParams ? { connectionParams } : {}),
      });
      try {
        return await new Promise<unknown>((resolve) => {
          client.subscribe(
            { query: QUERY, variables: { id: memo } },
            {
              next: resolve,
              error: (error) => resolve({ failure: error instanceof Error ? error.message : error }),
              complete: () => {},
            },
          );
          if (write) setTimeout(() => void write(), 300);
        });
      } finally {
        await client.dispose();
      }
    }
    const create = async () => {
      const response = await fetch(`${origin}/api/memos`, {
        method: 'POST',
        headers: { 'content-type': 'application/ld+json' },
        body: JSON.stringify({ text: 'first' }),
      });
      return ((await response.json()) as { '@id': string })['@id'];
    };
    const edit = (memo: string) => () =>
      fetch(`${origin}${memo}`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/merge-patch+json' },
        body: JSON.stringify({ text: 'second' }),
      });

    it('reads each update as the caller of connection_init, and refuses an anonymous one as a query would', async () => {
      const memo = await create();
      expect(await first(memo, { authorization: `Bearer ${token}` }, edit(memo))).toEqual({
        data: { updateMemoSubscribe: { memo: { text: 'second' } } },
      });
      expect(JSON.stringify(await first(memo))).toContain('Full authentication is required');
    });

    it('refuses a connection whose token does not verify', async () => {
      const memo = await create();
      const refused = await first(memo, { authorization: 'Bearer not.a.token' });
      // mercurius answers with its `connection_error` (a message of the older protocol), and closes: no result comes.
      expect(JSON.stringify(refused)).toContain('connection_error');
      expect(JSON.stringify(refused)).not.toContain('"text"');
    });
  },
);
