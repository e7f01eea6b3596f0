/**
 * Issue 34, point 2: tokens that can be revoked. A token issued before its user's password or roles changed, or before
 * the user was deleted and created again under the same id, is refused (401 invalid_token), whichever way the write
 * came (REST, GraphQL, a custom operation's processor, a nested write). Refresh tokens rotate, and reuse revokes the
 * login. On SQLite and PostgreSQL.
 */
import type { FastifyInstance } from 'fastify';
import { SignJWT } from 'jose';
import { afterEach, describe, expect, inject, it } from 'vitest';
import {
  defineResource,
  defineShape,
  DeclarationError,
  generateMigration,
  hashPassword,
  runMigrations,
  type StateProcessor,
} from '@resource-api/core';
import { buildTestApp, testDatabases } from '@resource-api/core/testing';
import { call, useApp } from '../helpers.js';
import { freshTarget, type MigrationTarget, on, startApp } from '../migrations/support.js';
import { Note, SECRET, securityOptions, User } from './fixtures.js';

const PASSWORD = 'password-123';
const as = (token: string) => ({ authorization: `Bearer ${token}` });
const claimsOf = (token: string) =>
  JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;

/** A password change as the example app's: a custom operation whose processor hands the new hash to the built-in one. */
const NewPassword = defineShape({
  name: 'NewPassword',
  fields: { newPassword: { type: 'password', groups: ['user'] } },
});
const changePassword: StateProcessor = {
  async process(data, context, next) {
    await next({ ...context.previous!, plainPassword: await hashPassword(data.newPassword as string) });
  },
};
const Account = defineResource({
  name: 'User',
  fields: {
    email: { type: 'string', groups: ['user'] },
    plainPassword: { type: 'password', column: 'password', groups: ['user'] },
    roles: { type: 'string[]', default: ['ROLE_USER'], groups: ['admin'] },
    nickname: { type: 'string', nullable: true, groups: ['user'] },
  },
  normalizationGroups: ({ roles }) => (roles.includes('ROLE_ADMIN') ? ['admin', 'user'] : ['user']),
  denormalizationGroups: ({ roles }) => (roles.includes('ROLE_ADMIN') ? ['admin', 'user'] : ['user']),
  operations: [
    { kind: 'post' },
    { kind: 'get', security: "is_granted('ROLE_ADMIN') or object == user" },
    { kind: 'patch', security: "is_granted('ROLE_ADMIN') or object == user" },
    { kind: 'delete', security: "is_granted('ROLE_ADMIN') or object == user" },
    {
      kind: 'post',
      name: 'changePassword',
      uriTemplate: '/users/{id}/password',
      input: NewPassword,
      output: false,
      security: 'object == user',
      processor: changePassword,
    },
  ],
});
/** A profile whose `user` is written nested (cascade persist): a write that reaches the user through another resource. */
const Profile = defineResource({
  name: 'Profile',
  fields: {
    bio: { type: 'string', groups: ['user'] },
    user: { toOne: 'User', cascadePersist: true, groups: ['user'] },
  },
  normalizationGroups: ['user'],
  denormalizationGroups: ['user'],
  security: "is_granted('ROLE_USER')",
});

describe.each(testDatabases(inject('postgresUrl'), inject('mariadbUrl')))('revocable tokens on $name', (database) => {
  const app = useApp(database, { resources: [Account, Profile], security: securityOptions() });

  async function register(email: string, password = PASSWORD): Promise<number> {
    const response = await call(app(), {
      method: 'POST',
      url: '/api/users',
      payload: { email, plainPassword: password },
    });
    expect(response.status, response.text).toBe(201);
    return response.body.id as number;
  }
  async function login(email: string, password = PASSWORD): Promise<{ token: string; refresh_token: string }> {
    const response = await call(app(), { method: 'POST', url: '/api/auth', payload: { email, password } });
    expect(response.status, response.text).toBe(200);
    return response.body;
  }
  const me = (id: number, token: string) => call(app(), { method: 'GET', url: `/api/users/${id}`, headers: as(token) });
  async function expectRevoked(id: number, token: string): Promise<void> {
    const response = await me(id, token);
    expect(response.status, response.text).toBe(401);
    expect(response.headers['www-authenticate']).toMatch(
      /^Bearer error="invalid_token", error_description="the token was issued before the password or the roles of its user changed/,
    );
    expect(response.body).toMatchObject({ '@type': 'hydra:Error', status: 401 });
    expect(response.body.detail).toMatch(
      /^Invalid JWT Token: the token was issued before the password or the roles of its user changed; log in again$/,
    );
  }
  async function admin(): Promise<string> {
    const id = await register('admin@example.com');
    // Promoted outside the API (as an operator would), then logged in: the token is issued after the change.
    await app()
      .resourceApi.database.knex('user')
      .where('id', id)
      .update({ roles: JSON.stringify(['ROLE_ADMIN']) });
    await app().resourceApi.revokeTokens(id);
    return (await login('admin@example.com')).token;
  }

  it('refuses a token issued before a password change through PATCH; a write of other fields keeps it; the new password logs in', async () => {
    const id = await register('ann@example.com');
    const { token } = await login('ann@example.com');
    expect(typeof claimsOf(token).iat_ms).toBe('number');
    const renamed = await call(app(), {
      method: 'PATCH',
      url: `/api/users/${id}`,
      headers: { ...as(token), 'content-type': 'application/merge-patch+json' },
      payload: { nickname: 'Ann' },
    });
    expect(renamed.status).toBe(200);
    expect((await me(id, token)).status).toBe(200);
    const changed = await call(app(), {
      method: 'PATCH',
      url: `/api/users/${id}`,
      headers: { ...as(token), 'content-type': 'application/merge-patch+json' },
      payload: { plainPassword: 'a-new-password' },
    });
    expect(changed.status).toBe(200);
    await expectRevoked(id, token);
    const fresh = await login('ann@example.com', 'a-new-password');
    expect((await me(id, fresh.token)).status).toBe(200);
  });

  it('refuses a token issued before a password change by a custom operation whose processor calls the built-in one', async () => {
    const id = await register('ann@example.com');
    const { token } = await login('ann@example.com');
    const changed = await call(app(), {
      method: 'POST',
      url: `/api/users/${id}/password`,
      headers: as(token),
      payload: { newPassword: 'a-new-password' },
    });
    expect(changed.status, changed.text).toBe(204);
    await expectRevoked(id, token);
  });

  it('refuses a token issued before a password change through GraphQL', async () => {
    const id = await register('ann@example.com');
    const { token } = await login('ann@example.com');
    const response = await call(app(), {
      method: 'POST',
      url: '/graphql',
      headers: as(token),
      payload: {
        query: `mutation { updateUser(input: { id: "/api/users/${id}", plainPassword: "a-new-password" }) { user { id } } }`,
      },
    });
    expect(response.body.errors, response.text).toBeUndefined();
    await expectRevoked(id, token);
  });

  it('refuses a token issued before a password change written nested in another resource', async () => {
    const id = await register('ann@example.com');
    const { token } = await login('ann@example.com');
    const created = await call(app(), {
      method: 'POST',
      url: '/api/profiles',
      headers: as(token),
      payload: { bio: 'hi', user: `/api/users/${id}` },
    });
    expect(created.status, created.text).toBe(201);
    const nested = await call(app(), {
      method: 'PATCH',
      url: `/api/profiles/${created.body.id}`,
      headers: { ...as(token), 'content-type': 'application/merge-patch+json' },
      payload: { user: { plainPassword: 'a-new-password' } },
    });
    expect(nested.status, nested.text).toBe(200);
    await expectRevoked(id, token);
  });

  it('refuses a token issued before an admin changed the roles of its user', async () => {
    const adminToken = await admin();
    const id = await register('ann@example.com');
    const { token } = await login('ann@example.com');
    const granted = await call(app(), {
      method: 'PATCH',
      url: `/api/users/${id}`,
      headers: { ...as(adminToken), 'content-type': 'application/merge-patch+json' },
      payload: { roles: ['ROLE_USER', 'ROLE_ADMIN'] },
    });
    expect(granted.status, granted.text).toBe(200);
    await expectRevoked(id, token);
    // The same roles written again change nothing: the token of the next login stays good.
    const next = await login('ann@example.com');
    const same = await call(app(), {
      method: 'PATCH',
      url: `/api/users/${id}`,
      headers: { ...as(adminToken), 'content-type': 'application/merge-patch+json' },
      payload: { roles: ['ROLE_ADMIN', 'ROLE_USER'] },
    });
    expect(same.status).toBe(200);
    expect((await me(id, next.token)).status).toBe(200);
  });

  it('refuses a token of a user deleted and created again under the same id', async () => {
    const id = await register('ann@example.com');
    const { token } = await login('ann@example.com');
    expect((await call(app(), { method: 'DELETE', url: `/api/users/${id}`, headers: as(token) })).status).toBe(204);
    const again = await register('ann@example.com', 'someone-else-now');
    // PostgreSQL never hands an id out twice, SQLite may: the new user is moved to the old id, as SQLite would give it.
    if (again !== id) await app().resourceApi.database.knex('user').where('id', again).update({ id });
    await expectRevoked(id, token);
  });

  it('compares a token issued elsewhere (no iat_ms) in whole seconds', async () => {
    const id = await register('ann@example.com');
    const key = new TextEncoder().encode(SECRET);
    const sign = (iat: number) =>
      new SignJWT({ email: 'ann@example.com' })
        .setProtectedHeader({ alg: 'HS256' })
        .setIssuedAt(iat)
        .setExpirationTime('1h')
        .setSubject(String(id))
        .sign(key);
    const now = Math.floor(Date.now() / 1000);
    expect((await me(id, await sign(now))).status).toBe(200);
    expect((await me(id, await sign(now - 5))).status).toBe(401);
  });

  describe('refresh tokens', () => {
    const refresh = (refreshToken: unknown) =>
      call(app(), { method: 'POST', url: '/api/auth/refresh', payload: { refresh_token: refreshToken } });

    it('come with the login; a refresh gives a new pair and retires the token given; reuse revokes the login', async () => {
      const id = await register('ann@example.com');
      const first = await login('ann@example.com');
      expect(first.refresh_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      // Stored hashed only.
      const rows = await app().resourceApi.database.knex('resource_api_refresh_token').select();
      expect(rows).toHaveLength(1);
      expect(JSON.stringify(rows)).not.toContain(first.refresh_token);

      const second = await refresh(first.refresh_token);
      expect(second.status, second.text).toBe(200);
      expect(second.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(second.headers['cache-control']).toBe('no-store');
      expect(Object.keys(second.body).sort()).toEqual(['refresh_token', 'token']);
      expect(second.body.refresh_token).not.toBe(first.refresh_token);
      expect(claimsOf(second.body.token)).toMatchObject({
        sub: String(id),
        email: 'ann@example.com',
        sid: claimsOf(first.token).sid,
      });
      expect((await me(id, second.body.token)).status).toBe(200);

      const third = await refresh(second.body.refresh_token);
      expect(third.status).toBe(200);
      // The retired token again: reuse. Refused, and the login's newest refresh token is revoked with it.
      const reused = await refresh(first.refresh_token);
      expect(reused.status).toBe(401);
      expect(reused.body).toMatchObject({
        '@type': 'hydra:Error',
        detail:
          'Invalid refresh token: it was already used; every refresh token of its login is revoked. Log in again.',
      });
      expect((await refresh(third.body.refresh_token)).status).toBe(401);
      // Another login of the same user is not touched.
      const other = await login('ann@example.com');
      expect((await refresh(other.refresh_token)).status).toBe(200);
    });

    it('two refreshes racing with one token: one wins, the other is reuse (and revokes the login)', async () => {
      await register('ann@example.com');
      const { refresh_token: token } = await login('ann@example.com');
      const answers = await Promise.all([refresh(token), refresh(token), refresh(token)]);
      expect(answers.map((a) => a.status).sort()).toEqual([200, 401, 401]);
      const winner = answers.find((a) => a.status === 200)!;
      expect((await refresh(winner.body.refresh_token)).status).toBe(401);
    });

    it("logout with the access token revokes the login's refresh tokens (204); other logins stay", async () => {
      await register('ann@example.com');
      const first = await login('ann@example.com');
      const other = await login('ann@example.com');
      const out = await call(app(), { method: 'POST', url: '/api/auth/logout', headers: as(first.token) });
      expect(out.status, out.text).toBe(204);
      expect(out.text).toBe('');
      expect((await refresh(first.refresh_token)).status).toBe(401);
      expect((await refresh(other.refresh_token)).status).toBe(200);
      const anonymous = await call(app(), { method: 'POST', url: '/api/auth/logout' });
      expect(anonymous.status).toBe(401);
      expect(anonymous.body.detail).toMatch(/^Full authentication is required to log out/);
      const forged = await call(app(), { method: 'POST', url: '/api/auth/logout', headers: as('not.a.token') });
      expect(forged.status).toBe(401);
      expect(forged.headers['www-authenticate']).toMatch(/^Bearer error="invalid_token"/);
    });

    it('a password change revokes the refresh tokens issued before it', async () => {
      const id = await register('ann@example.com');
      const { token, refresh_token: refreshToken } = await login('ann@example.com');
      await call(app(), {
        method: 'PATCH',
        url: `/api/users/${id}`,
        headers: { ...as(token), 'content-type': 'application/merge-patch+json' },
        payload: { plainPassword: 'a-new-password' },
      });
      const refused = await refresh(refreshToken);
      expect(refused.status).toBe(401);
      expect(refused.body.detail).toBe(
        'Invalid refresh token: the password or the roles of its user changed since it was issued; log in again.',
      );
      // And that login is over: even the first answer revoked its family.
      expect((await refresh(refreshToken)).status).toBe(401);
    });

    it('bad refresh requests get a clear 4xx and change nothing', async () => {
      await register('ann@example.com');
      const { refresh_token: token } = await login('ann@example.com');
      for (const payload of [{}, { refresh_token: '' }, { refresh_token: 42 }, { refresh_token: ['x'] }]) {
        const response = await call(app(), { method: 'POST', url: '/api/auth/refresh', payload });
        expect(response.status).toBe(400);
        expect(response.body.detail).toBe('The key "refresh_token" must be provided.');
      }
      const long = await refresh('x'.repeat(257));
      expect(long.status).toBe(400);
      expect(
        (
          await call(app(), {
            method: 'POST',
            url: '/api/auth/refresh',
            headers: { 'content-type': 'text/plain' },
            payload: token,
          })
        ).status,
      ).toBe(415);
      const unknown = await refresh('an-unknown-refresh-token');
      expect(unknown.status).toBe(401);
      expect(unknown.body.detail).toBe(
        'Invalid refresh token: it is unknown, or was revoked (log out, a password or role change, or its reuse); log in again.',
      );
      // The good token is still good.
      expect((await refresh(token)).status).toBe(200);
    });
  });

  it('documents the refresh and logout routes in OpenAPI, beside the login route', async () => {
    const { paths } = (await call(app(), { method: 'GET', url: '/api/docs.json' })).body;
    expect(paths['/auth'].post.responses['200'].content['application/json'].schema.required).toEqual([
      'token',
      'refresh_token',
    ]);
    expect(paths['/auth/refresh'].post).toMatchObject({ operationId: 'login_refresh_post', tags: ['Login'] });
    expect(paths['/auth/logout'].post).toMatchObject({ operationId: 'login_logout_post', security: [{ JWT: [] }] });
  });

  it('matches the login identifier regardless of letter case, and names the user as stored', async () => {
    await register('alice@example.com');
    const { token } = await login('Alice@Example.COM');
    expect(claimsOf(token).email).toBe('alice@example.com');
    expect(
      (
        await call(app(), {
          method: 'POST',
          url: '/api/auth',
          payload: { email: 'ALICE@EXAMPLE.COM', password: 'wrong-password' },
        })
      ).status,
    ).toBe(401);
  });
});

describe.each(testDatabases(inject('postgresUrl'), inject('mariadbUrl')))(
  'refresh token lifetime on $name',
  (database) => {
    let app: FastifyInstance | undefined;
    afterEach(async () => {
      await app?.close();
      app = undefined;
    });

    it('refuses a refresh token past security.jwt.refreshTtl', async () => {
      app = await buildTestApp({
        database,
        resources: [User, Note],
        security: securityOptions({ jwt: { secret: SECRET, refreshTtl: 1 } }),
      });
      expect(
        (
          await call(app, {
            method: 'POST',
            url: '/api/users',
            payload: { email: 'ann@example.com', plainPassword: PASSWORD },
          })
        ).status,
      ).toBe(201);
      const { refresh_token: token } = (
        await call(app, { method: 'POST', url: '/api/auth', payload: { email: 'ann@example.com', password: PASSWORD } })
      ).body;
      await new Promise((resolve) => setTimeout(resolve, 1100));
      const expired = await call(app, { method: 'POST', url: '/api/auth/refresh', payload: { refresh_token: token } });
      expect(expired.status).toBe(401);
      expect(expired.body.detail).toBe('Invalid refresh token: it has expired; log in again.');
    });

    it('refuses a refreshTtl that is not a whole number of seconds from 1 up', async () => {
      await expect(
        buildTestApp({
          database,
          resources: [User, Note],
          security: securityOptions({ jwt: { secret: SECRET, refreshTtl: 0 } }),
        }),
      ).rejects.toThrow(DeclarationError);
    });
  },
);

describe.each(testDatabases(inject('postgresUrl'), inject('mariadbUrl')))(
  'the framework columns and tables in migrations on $name',
  (database) => {
    let target: MigrationTarget | undefined;
    afterEach(async () => {
      await target?.drop();
      target = undefined;
    });

    it('a generated migration makes the refresh token table and the tokens column, and a production start serves the login and refresh on it', async () => {
      target = await freshTarget(database);
      const file = await generateMigration({ resources: [User, Note], ...on(target) });
      expect(file).not.toBeNull();
      await runMigrations(on(target));
      expect(await target.knex.schema.hasTable('resource_api_refresh_token')).toBe(true);
      expect(await target.knex.schema.hasColumn('user', 'resource_api_tokens_valid_after')).toBe(true);
      const app = await startApp(target, [User, Note], { security: securityOptions() });
      try {
        expect(
          (
            await call(app, {
              method: 'POST',
              url: '/api/users',
              payload: { email: 'ann@example.com', plainPassword: PASSWORD },
            })
          ).status,
        ).toBe(201);
        const pair = await call(app, {
          method: 'POST',
          url: '/api/auth',
          payload: { email: 'ann@example.com', password: PASSWORD },
        });
        expect(
          (
            await call(app, {
              method: 'POST',
              url: '/api/auth/refresh',
              payload: { refresh_token: pair.body.refresh_token },
            })
          ).status,
        ).toBe(200);
      } finally {
        await app.close();
      }
    });
  },
);
