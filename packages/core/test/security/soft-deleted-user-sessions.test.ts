/**
 * A user resource with soft delete, on SQLite and PostgreSQL: a deleted account cannot log in, its access and refresh
 * tokens stop working, and a restore brings the account back without the sessions it had (a new login works).
 */
import { describe, expect, inject, it } from 'vitest';
import { defineResource, Email, NotBlank, Unique } from '@resource-api/core';
import { testDatabases } from '@resource-api/core/testing';
import { call, useApp } from '../helpers.js';
import { SECRET } from './fixtures.js';

const User = defineResource({
  name: 'User',
  fields: {
    email: { type: 'string', constraints: [NotBlank(), Email(), Unique()] },
    plainPassword: { type: 'password', column: 'password', readable: false },
    roles: { type: 'string[]', default: ['ROLE_USER'], writable: false },
  },
  softDelete: { restore: 'true' },
  operations: ['post', 'get', 'delete'],
});

describe.each(testDatabases(inject('postgresUrl'), inject('mariadbUrl')))(
  'sessions of soft-deleted users on $name',
  (database) => {
    const app = useApp(database, {
      resources: [User],
      security: { jwt: { secret: SECRET }, users: { resource: 'User' } },
    });
    const login = () =>
      call(app(), { method: 'POST', url: '/api/auth', payload: { email: 'ann@example.com', password: 'pw-123456' } });

    it('ends the sessions of a deleted account, and a restore does not bring them back', async () => {
      const created = await call(app(), {
        method: 'POST',
        url: '/api/users',
        payload: { email: 'ann@example.com', plainPassword: 'pw-123456' },
      });
      expect(created.status, created.text).toBe(201);
      const session = (await login()).body as { token: string; refresh_token: string };
      const headers = { authorization: `Bearer ${session.token}` };
      expect((await call(app(), { method: 'GET', url: '/api/users/1', headers })).status).toBe(200);

      await new Promise((resolve) => setTimeout(resolve, 5));
      expect((await call(app(), { method: 'DELETE', url: '/api/users/1' })).status).toBe(204);
      expect((await login()).status).toBe(401);
      expect((await call(app(), { method: 'GET', url: '/api/users/1', headers })).status).toBe(401);

      const restored = await call(app(), { method: 'PATCH', url: '/api/users/1/restore' });
      expect(restored.status, restored.text).toBe(200);
      expect((await call(app(), { method: 'GET', url: '/api/users/1', headers })).status).toBe(401);
      const refreshed = await call(app(), {
        method: 'POST',
        url: '/api/auth/refresh',
        payload: { refresh_token: session.refresh_token },
      });
      expect(refreshed.status).toBe(401);
      const again = await login();
      expect(again.status, again.text).toBe(200);
      const fresh = { authorization: `Bearer ${again.body.token}` };
      expect((await call(app(), { method: 'GET', url: '/api/users/1', headers: fresh })).status).toBe(200);
    });
  },
);
