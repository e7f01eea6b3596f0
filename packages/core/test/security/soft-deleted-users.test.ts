/**
 * A soft-deleted user resource, on SQLite and PostgreSQL: a deleted account cannot log in, and its email may be
 * registered again by someone else, who then logs in with their own password (the login finds live accounts only).
 */
import { describe, expect, inject, it } from 'vitest';
import { defineResource, Email, NotBlank, Unique } from '@resource-api/core';
import { testDatabases } from '@resource-api/core/testing';
import { call, useApp } from '../helpers.js';
import { securityOptions } from './fixtures.js';

const User = defineResource({
  name: 'User',
  softDelete: true,
  fields: {
    email: { type: 'string', constraints: [NotBlank(), Email(), Unique()] },
    plainPassword: { type: 'password', column: 'password' },
    roles: { type: 'string[]', default: ['ROLE_USER'], writable: false },
  },
  operations: ['post', { kind: 'get', security: 'object == user' }, { kind: 'delete', security: 'object == user' }],
});

describe.each(testDatabases(inject('postgresUrl'), inject('mariadbUrl')))('soft-deleted users on $name', (database) => {
  const app = useApp(database, { resources: [User], security: securityOptions({ users: { resource: 'User' } }) });

  const register = async (password: string) => {
    const response = await call(app(), {
      method: 'POST',
      url: '/api/users',
      payload: { email: 'ann@example.com', plainPassword: password },
    });
    expect(response.status, response.text).toBe(201);
    return response.body.id as number;
  };
  const login = (password: string) =>
    call(app(), { method: 'POST', url: '/api/auth', payload: { email: 'ann@example.com', password } });

  it('refuses the login of a deleted account, and logs in the new account that took its email', async () => {
    const first = await register('first-password');
    const token = (await login('first-password')).body.token as string;
    const removed = await call(app(), {
      method: 'DELETE',
      url: `/api/users/${first}`,
      headers: { authorization: `Bearer ${token}` },
    });
    expect(removed.status, removed.text).toBe(204);
    const refused = await login('first-password');
    expect(refused.status).toBe(401);
    expect(refused.body.detail).toBe('Invalid credentials.');

    // The email is free again (the Unique check and the unique index leave the deleted account out).
    const second = await register('second-password');
    expect(second).not.toBe(first);
    const logged = await login('second-password');
    expect(logged.status, logged.text).toBe(200);
    const me = await call(app(), {
      method: 'GET',
      url: `/api/users/${second}`,
      headers: { authorization: `Bearer ${logged.body.token}` },
    });
    expect(me.status, me.text).toBe(200);
    expect(me.body.email).toBe('ann@example.com');
    expect((await login('first-password')).status).toBe(401);
  });
});
