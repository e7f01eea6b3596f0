/** A field whose own `security` denies the caller is ignored on write (REST and GraphQL) and hidden on read. */
import { defineResource } from '@resource-api/core';
import { testDatabases } from '@resource-api/core/testing';
import { describe, expect, inject, it } from 'vitest';
import { call, useApp } from '../helpers.js';
import { securityOptions, User } from './fixtures.js';

const Ticket = defineResource({
  name: 'Ticket',
  fields: {
    title: { type: 'string' },
    priority: { type: 'integer', default: 0, security: "is_granted('ROLE_ADMIN')" },
  },
});

describe.each(testDatabases(inject('postgresUrl'), inject('mariadbUrl')))(
  'field security on write on $name',
  (database) => {
    const app = useApp(database, { resources: [User, Ticket], security: securityOptions() });

    it('anonymous writes of a guarded field are ignored silently, REST and GraphQL', async () => {
      const post = await call(app(), { method: 'POST', url: '/api/tickets', payload: { title: 'a', priority: 9 } });
      expect(post.status, post.text).toBe(201);
      expect(post.body).not.toHaveProperty('priority');
      const patch = await call(app(), {
        method: 'PATCH',
        url: '/api/tickets/1',
        headers: { 'content-type': 'application/merge-patch+json' },
        payload: { priority: 7 },
      });
      expect(patch.status, patch.text).toBe(200);
      const put = await call(app(), { method: 'PUT', url: '/api/tickets/1', payload: { title: 'b', priority: 5 } });
      expect(put.status, put.text).toBe(200);
      const g = await call(app(), {
        method: 'POST',
        url: '/graphql',
        payload: {
          query: 'mutation { createTicket(input: { title: "c", priority: 8 }) { ticket { title priority } } }',
        },
      });
      expect(g.status, g.text).toBe(200);
      const g2 = await call(app(), {
        method: 'POST',
        url: '/graphql',
        payload: {
          query:
            'mutation { updateTicket(input: { id: "/api/tickets/1", priority: 8 }) { ticket { title priority } } }',
        },
      });
      expect(g2.status, g2.text).toBe(200);
      const rows = await app().resourceApi.database.knex('ticket').select('priority');
      expect(rows.map((r: { priority: unknown }) => r.priority)).toEqual([0, 0]);
      expect(JSON.stringify(g.body) + JSON.stringify(g2.body), g.text + g2.text).not.toMatch(/"priority":[1-9]/);
    });
  },
);
