/** Subresources take the rule of their target's collection GET, or carry their own. */
import { describe, expect, inject, it } from 'vitest';
import { defineResource } from '@resource-api/core';
import { buildTestApp, testDatabases } from '@resource-api/core/testing';
import { call } from '../helpers.js';
import { securityOptions, User } from './fixtures.js';

const Shelf = defineResource({
  name: 'Shelf',
  fields: {
    label: { type: 'string' },
    items: { toMany: 'Item', mappedBy: 'shelf', subresource: true },
    secrets: {
      toMany: 'Secret',
      mappedBy: 'shelf',
      subresource: { security: "is_granted('ROLE_ADMIN')", securityMessage: 'Admins only here.' },
    },
  },
});
const Item = defineResource({
  name: 'Item',
  fields: { name: { type: 'string' }, shelf: { toOne: 'Shelf' } },
  operations: [{ kind: 'getCollection', security: "is_granted('ROLE_USER')" }, 'post', 'get'],
});
const Secret = defineResource({ name: 'Secret', fields: { code: { type: 'string' }, shelf: { toOne: 'Shelf' } } });

describe.each(testDatabases(inject('postgresUrl'), inject('mariadbUrl')))('subresource rules on $name', (database) => {
  it('applies the target collection rule, or the subresource own rule', async () => {
    const app = await buildTestApp({ database, resources: [User, Shelf, Item, Secret], security: securityOptions() });
    await call(app, { method: 'POST', url: '/api/shelves', payload: { label: 'A' } });
    await call(app, { method: 'POST', url: '/api/items', payload: { name: 'x', shelf: '/api/shelves/1' } });
    await call(app, { method: 'POST', url: '/api/secrets', payload: { code: 'y', shelf: '/api/shelves/1' } });
    // anonymous: the Item collection rule applies to /shelves/1/items → 401, even for a missing parent
    expect((await call(app, { method: 'GET', url: '/api/shelves/1/items' })).status).toBe(401);
    expect((await call(app, { method: 'GET', url: '/api/shelves/99/items' })).status).toBe(401);
    await call(app, {
      method: 'POST',
      url: '/api/users',
      payload: { email: 'ann@example.com', plainPassword: 'password-123' },
    });
    const token = (
      await call(app, {
        method: 'POST',
        url: '/api/auth',
        payload: { email: 'ann@example.com', password: 'password-123' },
      })
    ).body.token;
    const headers = { authorization: `Bearer ${token}` };
    expect((await call(app, { method: 'GET', url: '/api/shelves/1/items', headers })).body['hydra:totalItems']).toBe(1);
    // Secret has no rule, but its subresource carries one
    expect((await call(app, { method: 'GET', url: '/api/secrets', headers })).status).toBe(200);
    const denied = await call(app, { method: 'GET', url: '/api/shelves/1/secrets', headers });
    expect(denied.status).toBe(403);
    expect(denied.body.detail).toBe('Admins only here.');
    await app.close();
  });
});
