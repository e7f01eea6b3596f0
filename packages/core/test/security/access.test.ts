/** Authentication and access rules through HTTP, on SQLite and PostgreSQL. */
import { generateKeyPairSync } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import { exportJWK, SignJWT } from 'jose';
import { describe, expect, inject, it } from 'vitest';
import { buildTestApp, testDatabases } from '@resource-api/core/testing';
import { call, useApp } from '../helpers.js';
import { Note, Public, Report, SECRET, securityOptions, User } from './fixtures.js';

const resources = [User, Note, Report, Public];
const key = new TextEncoder().encode(SECRET);
const sign = (
  claims: Record<string, unknown>,
  options: { exp?: string | number; alg?: string; secret?: Uint8Array } = {},
) =>
  new SignJWT(claims)
    .setProtectedHeader({ alg: options.alg ?? 'HS256' })
    .setIssuedAt()
    .setExpirationTime(options.exp ?? '1h')
    .setSubject(String(claims.sub))
    .sign(options.secret ?? key);

async function register(app: FastifyInstance, email: string, extra: object = {}) {
  const response = await call(app, {
    method: 'POST',
    url: '/api/users',
    payload: { email, plainPassword: 'password-123', ...extra },
  });
  expect(response.status, response.text).toBe(201);
  return response.body;
}
async function login(app: FastifyInstance, email: string, password = 'password-123'): Promise<string> {
  const response = await call(app, { method: 'POST', url: '/api/auth', payload: { email, password } });
  expect(response.status, response.text).toBe(200);
  return response.body.token;
}
const as = (token: string) => ({ authorization: `Bearer ${token}` });

describe.each(testDatabases(inject('postgresUrl'), inject('mariadbUrl')))('security on $name', (database) => {
  const app = useApp(database, { resources, security: securityOptions() });

  async function admin(): Promise<string> {
    const user = await register(app(), 'admin@example.com');
    await app()
      .resourceApi.database.knex('user')
      .where('id', user.id)
      .update({ roles: JSON.stringify(['ROLE_ADMIN']) });
    return login(app(), 'admin@example.com');
  }

  it('logs in with POST /api/auth: a token with sub, email, iat and exp; 401 for wrong credentials; 400 for missing fields', async () => {
    await register(app(), 'ann@example.com');
    const response = await call(app(), {
      method: 'POST',
      url: '/api/auth',
      payload: { email: 'ann@example.com', password: 'password-123' },
    });
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    const claims = JSON.parse(Buffer.from(response.body.token.split('.')[1], 'base64url').toString());
    expect(claims).toMatchObject({ sub: '1', email: 'ann@example.com' });
    expect(claims.exp - claims.iat).toBe(3600);
    for (const payload of [
      { email: 'ann@example.com', password: 'wrong' },
      { email: 'nobody@example.com', password: 'password-123' },
    ]) {
      const denied = await call(app(), { method: 'POST', url: '/api/auth', payload });
      expect(denied.status).toBe(401);
      expect(denied.body.detail).toBe('Invalid credentials.');
    }
    const missing = await call(app(), { method: 'POST', url: '/api/auth', payload: { email: 'ann@example.com' } });
    expect(missing.status).toBe(400);
    expect(missing.body.detail).toBe('The key "password" must be provided.');
  });

  it('registers users with ROLE_USER, ignores client roles, grants ROLE_COMPANY through the hook, never returns the password', async () => {
    const user = await register(app(), 'co@example.com', { roles: ['ROLE_ADMIN'], isCompany: true });
    expect(user).not.toHaveProperty('plainPassword');
    expect(user).not.toHaveProperty('roles');
    const stored = await app().resourceApi.database.knex('user').where('id', user.id).first();
    const roles = typeof stored.roles === 'string' ? JSON.parse(stored.roles) : stored.roles;
    expect(roles).toEqual(['ROLE_USER', 'ROLE_COMPANY']);
    expect(stored.password).toMatch(/^scrypt\$/);
    // An admin may set roles
    const token = await admin();
    const byAdmin = await call(app(), {
      method: 'POST',
      url: '/api/users',
      headers: as(token),
      payload: { email: 'boss@example.com', plainPassword: 'password-123', roles: ['ROLE_ADMIN', 'ROLE_ADMIN'] },
    });
    expect(byAdmin.body.roles).toEqual(['ROLE_USER', 'ROLE_ADMIN']);
  });

  it('answers 401 for anonymous calls to protected operations, before looking anything up', async () => {
    for (const url of ['/api/notes', '/api/notes/1', '/api/notes/999', '/api/reports', '/api/users']) {
      const response = await call(app(), { method: 'GET', url });
      expect(response.status, url).toBe(401);
      expect(response.headers['www-authenticate']).toBe('Bearer');
      expect(response.body.detail).toBe('Full authentication is required to access this resource.');
    }
    expect(
      (
        await call(app(), {
          method: 'PATCH',
          url: '/api/notes/999',
          headers: { 'content-type': 'application/merge-patch+json' },
          payload: '{}',
        })
      ).status,
    ).toBe(401);
    expect((await call(app(), { method: 'GET', url: '/api/pages' })).status).toBe(200);
  });

  it('answers 403 with the rule message to users without the right, and lets through those with it', async () => {
    await register(app(), 'ann@example.com');
    const ann = await login(app(), 'ann@example.com');
    const report = await call(app(), { method: 'GET', url: '/api/reports', headers: as(ann) });
    expect(report.status).toBe(403);
    expect(report.body.detail).toBe('Reports are for admins.');
    expect((await call(app(), { method: 'GET', url: '/api/users', headers: as(ann) })).status).toBe(403);
    const token = await admin();
    expect((await call(app(), { method: 'GET', url: '/api/reports', headers: as(token) })).status).toBe(200);
    expect((await call(app(), { method: 'GET', url: '/api/users', headers: as(token) })).body['hydra:totalItems']).toBe(
      2,
    );
  });

  it('checks object rules after the read: only the owner edits, admins included; 404 stays 404 for users', async () => {
    await register(app(), 'ann@example.com');
    await register(app(), 'bob@example.com');
    const ann = await login(app(), 'ann@example.com');
    const bob = await login(app(), 'bob@example.com');
    const created = await call(app(), {
      method: 'POST',
      url: '/api/notes',
      headers: as(ann),
      payload: { text: 'mine' },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ owner: '/api/users/1', author: '/api/users/1' });
    const patch = (token: string, payload: object) =>
      call(app(), {
        method: 'PATCH',
        url: '/api/notes/1',
        headers: { ...as(token), 'content-type': 'application/merge-patch+json' },
        payload: JSON.stringify(payload),
      });
    const denied = await patch(bob, { text: 'hijacked' });
    expect(denied.status).toBe(403);
    expect(denied.body.detail).toBe('Only the owner can edit this note.');
    const token = await admin();
    expect((await patch(token, { text: 'admin edit' })).status).toBe(403);
    expect((await patch(ann, { text: 'edited' })).body.text).toBe('edited');
    expect((await call(app(), { method: 'GET', url: '/api/notes/999', headers: as(ann) })).status).toBe(404);
    expect((await call(app(), { method: 'DELETE', url: '/api/notes/1', headers: as(bob) })).status).toBe(403);
    expect((await call(app(), { method: 'DELETE', url: '/api/notes/1', headers: as(token) })).status).toBe(204);
  });

  it('refuses payloads that hand an item to someone else (post-denormalize rules) and changes nothing', async () => {
    await register(app(), 'ann@example.com');
    await register(app(), 'bob@example.com');
    const ann = await login(app(), 'ann@example.com');
    const foreign = await call(app(), {
      method: 'POST',
      url: '/api/notes',
      headers: as(ann),
      payload: { text: 'x', owner: '/api/users/2' },
    });
    expect(foreign.status).toBe(403);
    expect(foreign.body.detail).toBe('You can only create your own notes.');
    await call(app(), { method: 'POST', url: '/api/notes', headers: as(ann), payload: { text: 'mine' } });
    const handOver = await call(app(), {
      method: 'PATCH',
      url: '/api/notes/1',
      headers: { ...as(ann), 'content-type': 'application/merge-patch+json' },
      payload: JSON.stringify({ owner: '/api/users/2', author: '/api/users/2' }),
    });
    expect(handOver.status).toBe(403);
    const note = await app().resourceApi.database.knex('note').where('id', 1).first();
    expect(note).toMatchObject({ owner_id: 1, author_id: 1 });
    expect((await app().resourceApi.database.knex('note').count({ n: '*' }).first())!.n).toBe(
      database.name === 'postgres' ? 1 : 1,
    );
  });

  it('ignores client values for currentUser "always" fields on create and update', async () => {
    await register(app(), 'ann@example.com');
    await register(app(), 'bob@example.com');
    const ann = await login(app(), 'ann@example.com');
    const created = await call(app(), {
      method: 'POST',
      url: '/api/notes',
      headers: as(ann),
      payload: { text: 'x', author: '/api/users/2' },
    });
    expect(created.body.author).toBe('/api/users/1');
  });

  it('narrows collections to what the caller may see, on the page and the count', async () => {
    await register(app(), 'ann@example.com');
    await register(app(), 'bob@example.com');
    const ann = await login(app(), 'ann@example.com');
    const bob = await login(app(), 'bob@example.com');
    for (const [token, text] of [
      [ann, 'a1'],
      [bob, 'b1'],
      [ann, 'a2'],
    ] as const)
      await call(app(), { method: 'POST', url: '/api/notes', headers: as(token), payload: { text } });
    const mine = await call(app(), { method: 'GET', url: '/api/notes', headers: as(ann) });
    expect(mine.body['hydra:totalItems']).toBe(2);
    expect(mine.body['hydra:member'].map((n: { text: string }) => n.text)).toEqual(['a1', 'a2']);
    const token = await admin();
    expect((await call(app(), { method: 'GET', url: '/api/notes', headers: as(token) })).body['hydra:totalItems']).toBe(
      3,
    );
  });

  it('hides and ignores fields whose own rule denies the caller, and shows roles to admins only', async () => {
    // Anonymous registration: the rule denies (no user yet), the nickname is ignored.
    expect(await register(app(), 'ann@example.com', { nickname: 'ignored' })).not.toHaveProperty('nickname');
    await register(app(), 'bob@example.com');
    const ann = await login(app(), 'ann@example.com');
    const bob = await login(app(), 'bob@example.com');
    await call(app(), {
      method: 'PATCH',
      url: '/api/users/1',
      headers: { ...as(ann), 'content-type': 'application/merge-patch+json' },
      payload: '{"nickname": "annie"}',
    });
    expect((await call(app(), { method: 'GET', url: '/api/users/1', headers: as(ann) })).body).toMatchObject({
      email: 'ann@example.com',
      nickname: 'annie',
    });
    expect((await call(app(), { method: 'GET', url: '/api/users/1', headers: as(ann) })).body).not.toHaveProperty(
      'roles',
    );
    expect((await call(app(), { method: 'GET', url: '/api/users/1', headers: as(bob) })).status).toBe(403);
    const token = await admin();
    expect((await call(app(), { method: 'GET', url: '/api/users/1', headers: as(token) })).body.roles).toEqual([
      'ROLE_USER',
    ]);
    // ann tries to make herself admin: roles are outside her write groups, ignored
    const escalate = await call(app(), {
      method: 'PATCH',
      url: '/api/users/1',
      headers: { ...as(ann), 'content-type': 'application/merge-patch+json' },
      payload: JSON.stringify({ roles: ['ROLE_ADMIN'] }),
    });
    expect(escalate.status).toBe(200);
    expect(
      (await call(app(), { method: 'GET', url: '/api/reports', headers: as(await login(app(), 'ann@example.com')) }))
        .status,
    ).toBe(403);
  });

  it('refuses bad tokens with 401 invalid_token on every operation, public ones included', async () => {
    await register(app(), 'ann@example.com');
    const good = await login(app(), 'ann@example.com');
    const [header, payload] = good.split('.');
    const tampered = `${header}.${Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload!, 'base64url').toString()), sub: '2' })).toString('base64url')}.${good.split('.')[2]}`;
    const unsigned = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url')}.${payload}.`;
    const cases = {
      malformed: 'not-a-jwt',
      tampered,
      unsigned,
      expired: await sign({ sub: '1' }, { exp: Math.floor(Date.now() / 1000) - 60 }),
      wrongSecret: await sign(
        { sub: '1' },
        { secret: new TextEncoder().encode('another-secret-that-is-long-enough-000000') },
      ),
      unknownUser: await sign({ sub: '99' }),
    };
    for (const [name, token] of Object.entries(cases)) {
      const response = await call(app(), { method: 'GET', url: '/api/pages', headers: as(token) });
      expect(response.status, name).toBe(401);
      expect(response.headers['www-authenticate'], name).toMatch(/^Bearer error="invalid_token"/);
    }
    expect(
      (await call(app(), { method: 'GET', url: '/api/pages', headers: { authorization: 'Basic abc' } })).status,
    ).toBe(401);
    // Within the clock tolerance an expired token still passes
    const justExpired = await sign({ sub: '1' }, { exp: Math.floor(Date.now() / 1000) - 2 });
    expect((await call(app(), { method: 'GET', url: '/api/notes', headers: as(justExpired) })).status).toBe(200);
  });

  it('loads the user on every request: a deleted user is refused, a removed role is gone at once', async () => {
    const token = await admin();
    await register(app(), 'ann@example.com');
    const ann = await login(app(), 'ann@example.com');
    expect((await call(app(), { method: 'GET', url: '/api/reports', headers: as(token) })).status).toBe(200);
    await app()
      .resourceApi.database.knex('user')
      .where('id', 1)
      .update({ roles: JSON.stringify([]) });
    expect((await call(app(), { method: 'GET', url: '/api/reports', headers: as(token) })).status).toBe(403);
    await app().resourceApi.database.knex('user').where('id', 2).delete();
    const gone = await call(app(), { method: 'GET', url: '/api/pages', headers: as(ann) });
    expect(gone.status).toBe(401);
    expect(gone.body.detail).toBe('Invalid JWT Token: the user no longer exists');
  });
});

describe.each(testDatabases(inject('postgresUrl'), inject('mariadbUrl')))(
  'tokens issued elsewhere on $name',
  (database) => {
    it('accepts RS256 and ES256 tokens from a public key, checks issuer and audience', async () => {
      for (const [alg, type] of [
        ['RS256', 'rsa'],
        ['ES256', 'ec'],
      ] as const) {
        const { privateKey, publicKey } =
          type === 'rsa'
            ? generateKeyPairSync('rsa', { modulusLength: 2048 })
            : generateKeyPairSync('ec', { namedCurve: 'P-256' });
        const app = await buildTestApp({
          database,
          resources,
          security: securityOptions({
            jwt: {
              publicKey: publicKey.export({ type: 'spki', format: 'pem' }) as string,
              issuer: 'https://id.example',
              audience: 'bookshop',
            },
          }),
        });
        await register(app, 'ann@example.com');
        const token = (iss: string, aud: string) =>
          new SignJWT({})
            .setProtectedHeader({ alg })
            .setSubject('1')
            .setIssuer(iss)
            .setAudience(aud)
            .setIssuedAt()
            .setExpirationTime('5m')
            .sign(privateKey);
        expect(
          (
            await call(app, {
              method: 'GET',
              url: '/api/notes',
              headers: as(await token('https://id.example', 'bookshop')),
            })
          ).status,
          alg,
        ).toBe(200);
        expect(
          (
            await call(app, {
              method: 'GET',
              url: '/api/notes',
              headers: as(await token('https://evil.example', 'bookshop')),
            })
          ).status,
          alg,
        ).toBe(401);
        expect(
          (
            await call(app, {
              method: 'GET',
              url: '/api/notes',
              headers: as(await token('https://id.example', 'other')),
            })
          ).status,
          alg,
        ).toBe(401);
        await app.close();
      }
    });

    it('fetches keys from a JWKS URL', async () => {
      const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
      const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
      const issuer = Fastify();
      issuer.get('/.well-known/jwks.json', async () => ({ keys: [jwk] }));
      await issuer.listen({ host: '127.0.0.1', port: 0 });
      const { port } = issuer.server.address() as AddressInfo;
      const app = await buildTestApp({
        database,
        resources,
        security: securityOptions({ jwt: { jwksUrl: `http://127.0.0.1:${port}/.well-known/jwks.json` } }),
      });
      await register(app, 'ann@example.com');
      const token = await new SignJWT({})
        .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
        .setSubject('1')
        .setIssuedAt()
        .setExpirationTime('5m')
        .sign(privateKey);
      expect((await call(app, { method: 'GET', url: '/api/notes', headers: as(token) })).status).toBe(200);
      const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
      const forged = await new SignJWT({})
        .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
        .setSubject('1')
        .setIssuedAt()
        .setExpirationTime('5m')
        .sign(other);
      expect((await call(app, { method: 'GET', url: '/api/notes', headers: as(forged) })).status).toBe(401);
      await app.close();
      await issuer.close();
    });
  },
);
