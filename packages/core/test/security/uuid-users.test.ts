/**
 * A user resource with UUID ids, on SQLite and PostgreSQL: login, tokens naming the user by UUID, refresh tokens,
 * `object.owner == user` rules, `currentUser` and `blame` relations, a collection filter on the user's id, and the
 * 401 of a token whose UUID names no user.
 */
import { describe, expect, inject, it } from 'vitest';
import { compare, defineResource, Email, NotBlank, Unique } from '@resource-api/core';
import { testDatabases } from '@resource-api/core/testing';
import { call, useApp } from '../helpers.js';
import { SECRET } from './fixtures.js';

const User = defineResource({
  name: 'User',
  id: 'uuid',
  fields: {
    email: { type: 'string', constraints: [NotBlank(), Email(), Unique()] },
    plainPassword: { type: 'password', column: 'password', readable: false },
    roles: { type: 'string[]', default: ['ROLE_USER'], writable: false },
  },
  operations: ['post', { kind: 'get', security: 'object == user' }],
});

const Memo = defineResource({
  name: 'Memo',
  fields: {
    text: { type: 'string' },
    owner: { toOne: 'User', currentUser: 'always', targetId: 'uuid' },
    createdBy: { toOne: 'User', blame: 'create', nullable: true, targetId: 'uuid' },
  },
  security: "is_granted('ROLE_USER')",
  operations: ['getCollection', 'post', { kind: 'get', security: 'object.owner == user' }],
  collectionFilter: ({ user }) => [compare('owner', '=', user?.id ?? null)],
});

const security = { jwt: { secret: SECRET }, users: { resource: 'User' } };

describe.each(testDatabases(inject('postgresUrl'), inject('mariadbUrl')))(
  'users with UUID ids on $name',
  (database) => {
    const app = useApp(database, { resources: [User, Memo], security });

    async function register(email: string): Promise<{ iri: string; headers: Record<string, string>; refresh: string }> {
      const created = await call(app(), {
        method: 'POST',
        url: '/api/users',
        payload: { email, plainPassword: 'pw-123456' },
      });
      expect(created.status, created.text).toBe(201);
      expect(created.body.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7/);
      const login = await call(app(), { method: 'POST', url: '/api/auth', payload: { email, password: 'pw-123456' } });
      expect(login.status, login.text).toBe(200);
      const claims = JSON.parse(Buffer.from(login.body.token.split('.')[1], 'base64url').toString());
      expect(claims.sub).toBe(created.body.id);
      return {
        iri: created.body['@id'],
        headers: { authorization: `Bearer ${login.body.token}` },
        refresh: login.body.refresh_token,
      };
    }

    it('logs in, reads itself, owns and blames what it writes, and sees only its own items', async () => {
      const ann = await register('ann@example.com');
      const bob = await register('bob@example.com');
      expect((await call(app(), { method: 'GET', url: ann.iri, headers: ann.headers })).status).toBe(200);
      expect((await call(app(), { method: 'GET', url: ann.iri, headers: bob.headers })).status).toBe(403);

      const memo = await call(app(), {
        method: 'POST',
        url: '/api/memos',
        headers: ann.headers,
        payload: { text: 'a' },
      });
      expect(memo.status, memo.text).toBe(201);
      expect(memo.body).toMatchObject({ owner: ann.iri, createdBy: ann.iri });
      await call(app(), { method: 'POST', url: '/api/memos', headers: bob.headers, payload: { text: 'b' } });

      expect((await call(app(), { method: 'GET', url: memo.body['@id'], headers: ann.headers })).status).toBe(200);
      expect((await call(app(), { method: 'GET', url: memo.body['@id'], headers: bob.headers })).status).toBe(403);
      const mine = await call(app(), { method: 'GET', url: '/api/memos', headers: bob.headers });
      expect(mine.body['hydra:member'].map((m: { text: string }) => m.text)).toEqual(['b']);
    });

    it('exchanges refresh tokens of a UUID user', async () => {
      const ann = await register('ann@example.com');
      const refreshed = await call(app(), {
        method: 'POST',
        url: '/api/auth/refresh',
        payload: { refresh_token: ann.refresh },
      });
      expect(refreshed.status, refreshed.text).toBe(200);
      const headers = { authorization: `Bearer ${refreshed.body.token}` };
      expect((await call(app(), { method: 'GET', url: ann.iri, headers })).status).toBe(200);
    });

    it('answers 401 to a token whose user is gone', async () => {
      const ann = await register('ann@example.com');
      await app().resourceApi.database.knex('user').delete();
      const response = await call(app(), { method: 'GET', url: '/api/memos', headers: ann.headers });
      expect(response.status).toBe(401);
    });
  },
);
