/**
 * What access rules make of an anonymous caller and of Symfony's authentication attributes, over HTTP: `user` is null
 * for anonymous callers (false in a test, equal to the literal `null`) yet equal to no stored value; `is_granted()`
 * knows `IS_AUTHENTICATED_FULLY`, `IS_AUTHENTICATED`, `PUBLIC_ACCESS` and `IS_ANONYMOUS`; a token must carry `exp`; a
 * subresource's own rule is checked at declaration like every rule.
 */
import { createHmac } from 'node:crypto';
import { defineResource } from '@resource-api/core';
import { buildTestApp, testDatabases } from '@resource-api/core/testing';
import { describe, expect, inject, it } from 'vitest';
import { call, useApp } from '../helpers.js';
import { SECRET, securityOptions, User } from './fixtures.js';

const guarded = (name: string, security: string) =>
  defineResource({ name, fields: { title: { type: 'string' } }, security });
const resources = [
  User,
  guarded('Truthy', 'user'),
  guarded('NotNull', 'user != null'),
  guarded('NotUser', 'not user'),
  guarded('IsNull', 'user == null'),
  guarded('Fully', "is_granted('IS_AUTHENTICATED_FULLY')"),
  guarded('Authenticated', "is_granted('IS_AUTHENTICATED')"),
  guarded('Everyone', "is_granted('PUBLIC_ACCESS')"),
  guarded('Stranger', "is_granted('IS_ANONYMOUS')"),
  // An item without owner: `object.owner == user` must not hold for an anonymous caller (null is not their id).
  defineResource({
    name: 'Ticket',
    fields: { title: { type: 'string' }, owner: { toOne: 'User', nullable: true } },
    operations: ['post', { kind: 'patch', security: 'object.owner == user' }, 'get'],
  }),
];

/** An HS256 token signed with the app's secret, with the claims given. */
function token(claims: Record<string, unknown>): string {
  const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const data = `${encode({ alg: 'HS256', typ: 'JWT' })}.${encode(claims)}`;
  return `${data}.${createHmac('sha256', SECRET).update(data).digest('base64url')}`;
}

describe.each(testDatabases(inject('postgresUrl'), inject('mariadbUrl')))(
  'anonymous callers and authentication attributes on $name',
  (database) => {
    const app = useApp(database, { resources, security: securityOptions() });
    const get = (path: string, authorization?: string) =>
      call(app(), { method: 'GET', url: path, headers: authorization ? { authorization } : {} });

    async function login(): Promise<string> {
      expect(
        (
          await call(app(), {
            method: 'POST',
            url: '/api/users',
            payload: { email: 'ann@example.com', plainPassword: 'password-1' },
          })
        ).status,
      ).toBe(201);
      return `Bearer ${(await call(app(), { method: 'POST', url: '/api/auth', payload: { email: 'ann@example.com', password: 'password-1' } })).body.token as string}`;
    }

    /** Each collection's status for an anonymous caller, then for a logged-in user: `[anonymous, user]`. */
    async function expectStatuses(statuses: Record<string, readonly [number, number]>): Promise<void> {
      for (const [collection, [status]] of Object.entries(statuses))
        expect((await get(`/api/${collection}`)).status, collection).toBe(status);
      const ann = await login();
      for (const [collection, [, status]] of Object.entries(statuses))
        expect((await get(`/api/${collection}`, ann)).status, `${collection}, logged in`).toBe(status);
    }

    it('reads `user` as null for an anonymous caller: false in a test, equal to the literal null', async () => {
      await expectStatuses({
        truthies: [401, 200],
        not_nulls: [401, 200],
        not_users: [200, 403],
        is_nulls: [200, 403],
      });
    });

    it('never takes an anonymous caller for the owner of an item without owner', async () => {
      expect((await call(app(), { method: 'POST', url: '/api/tickets', payload: { title: "Nobody's" } })).status).toBe(
        201,
      );
      const patch = await call(app(), {
        method: 'PATCH',
        url: '/api/tickets/1',
        payload: { title: 'Mine now' },
        headers: { 'content-type': 'application/merge-patch+json' },
      });
      expect(patch.status).toBe(401);
      expect((await get('/api/tickets/1')).body.title).toBe("Nobody's");
    });

    it('grants the authentication attributes as Symfony does', async () => {
      await expectStatuses({
        fullies: [401, 200],
        authenticateds: [401, 200],
        everyones: [200, 200],
        strangers: [200, 403],
      });
    });

    it('refuses a well-signed token without `exp` (401), and takes the same token with one', async () => {
      await login();
      const now = Math.floor(Date.now() / 1000);
      const without = await get('/api/fullies', `Bearer ${token({ sub: '1', email: 'ann@example.com', iat: now })}`);
      expect(without.status).toBe(401);
      expect(without.headers['www-authenticate']).toContain('invalid_token');
      expect(
        (await get('/api/fullies', `Bearer ${token({ sub: '1', email: 'ann@example.com', iat: now, exp: now + 60 })}`))
          .status,
      ).toBe(200);
    });
  },
);

describe.each(testDatabases(inject('postgresUrl'), inject('mariadbUrl')))(
  "a subresource's own rule on $name",
  (database) => {
    it.each(['has_role("ROLE_ADMIN")', 'usr == object', 'is_granted('])(
      'is refused at declaration when it is not a valid expression: %s',
      async (rule) => {
        const Shelf = defineResource({
          name: 'Shelf',
          fields: {
            label: { type: 'string' },
            secrets: { toMany: 'Secret', mappedBy: 'shelf', subresource: { security: rule } },
          },
        });
        const Secret = defineResource({
          name: 'Secret',
          fields: { code: { type: 'string' }, shelf: { toOne: 'Shelf' } },
        });
        await expect(
          buildTestApp({ database, resources: [User, Shelf, Secret], security: securityOptions() }),
        ).rejects.toThrow(/subresource.*expression|expression.*subresource/s);
      },
    );
  },
);

/** A rule that may grant anonymous callers by the item itself: read first, then judged with the item as `object`. */
const Post = defineResource({
  name: 'Post',
  fields: { title: { type: 'string' }, published: { type: 'boolean', default: false } },
  operations: [
    'post',
    { kind: 'get', security: "object.published == true or is_granted('ROLE_ADMIN')" },
    // A function rule may look at the item too.
    { kind: 'delete', security: ({ object }) => object?.published === false },
  ],
});

describe.each(testDatabases(inject('postgresUrl'), inject('mariadbUrl')))(
  'anonymous callers and rules on the item on $name',
  (database) => {
    const app = useApp(database, { resources: [User, Post], security: securityOptions() });

    it('lets an anonymous caller read what the rule grants by the item; anything else, a missing item included, is a 401', async () => {
      expect(
        (await call(app(), { method: 'POST', url: '/api/posts', payload: { title: 'Out', published: true } })).status,
      ).toBe(201);
      expect((await call(app(), { method: 'POST', url: '/api/posts', payload: { title: 'Draft' } })).status).toBe(201);
      const published = await call(app(), { method: 'GET', url: '/api/posts/1' });
      expect(published.status, published.text).toBe(200);
      for (const path of ['/api/posts/2', '/api/posts/999']) {
        const denied = await call(app(), { method: 'GET', url: path });
        expect(denied.status, path).toBe(401);
        expect(denied.headers['www-authenticate']).toContain('Bearer');
      }
      // The function rule: a draft may be deleted by anyone, a published post by nobody; a missing one is a 401 too.
      expect((await call(app(), { method: 'DELETE', url: '/api/posts/1' })).status).toBe(401);
      expect((await call(app(), { method: 'DELETE', url: '/api/posts/999' })).status).toBe(401);
      expect((await call(app(), { method: 'DELETE', url: '/api/posts/2' })).status).toBe(204);
      expect((await call(app(), { method: 'GET', url: '/api/posts/1' })).body.title).toBe('Out');
    });
  },
);
