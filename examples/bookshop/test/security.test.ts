/**
 * The contract's security end to end, on SQLite and PostgreSQL: registration and roles, login, the tokens and their
 * claims, every resource's access rules (401 for anonymous callers before anything is looked up, 403 for users
 * without the right), owner and user fields that cannot be handed to someone else, bad tokens refused everywhere,
 * users and roles read from the database on every request. Then the settings: `JWT_SECRET` (refused start in
 * production, a generated development secret), `JWT_TTL`, and the first admin of `ADMIN_EMAIL` / `ADMIN_PASSWORD`.
 *
 * In every bookshop user 1 is the admin it was started with (`ADMIN`); ann (2) and bob (3) register and log in.
 */
import { createHmac } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildBookshop } from '../src/app.js';
import { firstAdmin, jwtSecret, jwtTtl } from '../src/config.js';
import { ensureBuilt, freePort, mainJs, startNode } from './compiled.js';
import {
  ADMIN,
  bearer,
  call,
  claims,
  create,
  databases,
  DATETIME,
  HYDRA_LINK,
  type JsonResponse,
  login,
  MERGE_PATCH,
  PASSWORD,
  registerAndLogin,
  sharedDatabase,
  type SharedDatabase,
  storedRoles,
  TEST_JWT_SECRET,
  type TestUser,
  useBookshop,
} from './support.js';

const ANONYMOUS = 'Full authentication is required to access this resource.';
const DENIED = 'Access Denied.';
const OWNER_ONLY = 'Only the owner can edit this article.';

/** The whole `hydra:Error` body of an error. */
const errorBody = (status: number, detail: string) => ({
  '@context': '/api/contexts/Error',
  '@type': 'hydra:Error',
  'hydra:title': 'An error occurred',
  'hydra:description': detail,
  title: 'An error occurred',
  detail,
  status,
  type: `/errors/${status}`,
});

function expectUnauthenticated(response: JsonResponse, what: string): void {
  expect(response.status, `${what}: ${response.text}`).toBe(401);
  expect(response.headers['www-authenticate'], what).toBe('Bearer');
  expect(response.headers.link, what).toBe(HYDRA_LINK);
  expect(response.body, what).toEqual(errorBody(401, ANONYMOUS));
}

function expectForbidden(response: JsonResponse, what: string, detail = DENIED): void {
  expect(response.status, `${what}: ${response.text}`).toBe(403);
  expect(response.headers.link, what).toBe(HYDRA_LINK);
  expect(response.body, what).toEqual(errorBody(403, detail));
}

function expectInvalidToken(response: JsonResponse, what: string): void {
  expect(response.status, `${what}: ${response.text}`).toBe(401);
  expect(response.headers['www-authenticate'], what).toMatch(/^Bearer error="invalid_token", error_description="/);
  expect(response.body['@type'], what).toBe('hydra:Error');
  expect(response.body.detail, what).toMatch(/^Invalid JWT Token: /);
}

const base64url = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
const hmac = (input: string, secret: string, algorithm = 'sha256') =>
  createHmac(algorithm, secret).update(input).digest('base64url');

/** A JWT made here, byte by byte: HS256 (or `alg`) with `secret`. */
function craft(payload: object, options: { secret?: string; alg?: string; hash?: string } = {}): string {
  const head = `${base64url({ alg: options.alg ?? 'HS256', typ: 'JWT' })}.${base64url(payload)}`;
  return `${head}.${hmac(head, options.secret ?? TEST_JWT_SECRET, options.hash)}`;
}

const now = () => Math.floor(Date.now() / 1000);

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** One request: a bearer token when given, a JSON body (merge-patch for PATCH) when given. */
function request(
  app: FastifyInstance,
  method: Method,
  url: string,
  token?: string,
  payload?: object,
): Promise<JsonResponse> {
  const headers: Record<string, string> = {
    ...(token === undefined ? {} : bearer(token)),
    ...(method === 'PATCH' ? MERGE_PATCH : {}),
  };
  return call(app, {
    method,
    url,
    headers,
    ...(payload === undefined ? {} : { payload: method === 'PATCH' ? JSON.stringify(payload) : payload }),
  });
}

describe.each(databases)('security on $name', (database) => {
  const shop = useBookshop(database);
  let app: FastifyInstance;
  let admin: string;
  let ann: TestUser;
  let bob: TestUser;
  const send = (method: Method, url: string, token?: string, payload?: object) =>
    request(app, method, url, token, payload);

  beforeEach(async () => {
    app = shop().app;
    admin = shop().adminToken;
    ann = await registerAndLogin(app, 'ann@example.com');
    bob = await registerAndLogin(app, 'bob@example.com');
    expect([ann.id, bob.id]).toEqual([2, 3]);
  });

  /** The user as an admin reads it (roles included). */
  const asAdminSees = async (id: number) => {
    const response = await send('GET', `/api/users/${id}`, admin);
    expect(response.status).toBe(200);
    return response.body;
  };

  describe('registration and roles', () => {
    it('gives ROLE_USER on registration and ignores client roles, from anonymous callers and from users', async () => {
      const anonymous = await send('POST', '/api/users', undefined, {
        email: 'eve@example.com',
        plainPassword: PASSWORD,
        roles: ['ROLE_ADMIN', 'ROLE_SUPER_ADMIN'],
      });
      expect(anonymous.status).toBe(201);
      expect(anonymous.body).toEqual({
        '@context': '/api/contexts/User',
        '@id': '/api/users/4',
        '@type': 'User',
        id: 4,
        email: 'eve@example.com',
        comments: [],
      });
      const byUser = await send('POST', '/api/users', ann.token, {
        email: 'mallory@example.com',
        plainPassword: PASSWORD,
        roles: ['ROLE_ADMIN'],
      });
      expect(byUser.status).toBe(201);
      expect(byUser.body).not.toHaveProperty('roles');

      for (const id of [2, 4, 5]) expect((await asAdminSees(id)).roles, `user ${id}`).toEqual(['ROLE_USER']);
      const eve = await login(app, 'eve@example.com');
      expectForbidden(await send('POST', '/api/categories', eve, { name: 'Mine' }), 'eve writes a category');
      expectForbidden(await send('GET', '/api/users', eve), 'eve lists the users');
    });

    it('grants ROLE_COMPANY to a company, shows roles to admins only, and takes roles from an admin', async () => {
      const company = await registerAndLogin(app, 'shop@example.com', { isCompany: true });
      expect((await asAdminSees(company.id)).roles).toEqual(['ROLE_USER', 'ROLE_COMPANY']);
      const self = await send('GET', company.iri, company.token);
      expect(self.status).toBe(200);
      expect(self.body).toEqual({
        '@context': '/api/contexts/User',
        '@id': company.iri,
        '@type': 'User',
        id: company.id,
        email: 'shop@example.com',
        comments: [],
      });
      expect(self.text).not.toContain('ROLE_');

      const byAdmin = await send('POST', '/api/users', admin, {
        email: 'boss@example.com',
        plainPassword: PASSWORD,
        roles: ['ROLE_ADMIN', 'ROLE_ADMIN'],
      });
      expect(byAdmin.status).toBe(201);
      expect(byAdmin.body.roles).toEqual(['ROLE_USER', 'ROLE_ADMIN']);
      const boss = await login(app, 'boss@example.com');
      expect((await send('POST', '/api/categories', boss, { name: 'Books' })).status).toBe(201);
    });

    it('applies the role hierarchy: ROLE_SUPER_ADMIN includes ROLE_ADMIN, which includes ROLE_USER', async () => {
      // The first admin (ADMIN_EMAIL) is a super admin: it makes an admin, who cannot give ROLE_SUPER_ADMIN (403).
      await create(app, 'users', { email: 'boss@example.com', plainPassword: PASSWORD, roles: ['ROLE_ADMIN'] }, admin);
      const boss = await login(app, 'boss@example.com');
      expect(
        (
          await send('POST', '/api/users', boss, {
            email: 'root@example.com',
            plainPassword: PASSWORD,
            roles: ['ROLE_SUPER_ADMIN'],
          })
        ).status,
      ).toBe(403);
      expect(
        (
          await send('POST', '/api/users', admin, {
            email: 'root@example.com',
            plainPassword: PASSWORD,
            roles: ['ROLE_SUPER_ADMIN'],
          })
        ).status,
      ).toBe(201);
      const root = await login(app, 'root@example.com');
      expect((await send('POST', '/api/categories', root, { name: 'Books' })).status).toBe(201);
      expect((await send('GET', '/api/users', root)).status).toBe(200);
      expect((await send('GET', '/api/products', root)).status).toBe(200);
      // An admin holds ROLE_ADMIN, and through it ROLE_USER.
      expect((await send('GET', '/api/users', boss)).status).toBe(200);
      expect((await send('POST', '/api/comments', boss, { content: 'An admin is a user too.' })).body.user).toMatch(
        /^\/api\/users\/\d+$/,
      );
    });
  });

  describe('login', () => {
    it('answers 200 application/json {"token", "refresh_token"} for the right credentials, a token that works', async () => {
      const response = await send('POST', '/api/auth', undefined, { email: 'ann@example.com', password: PASSWORD });
      expect(response.status).toBe(200);
      expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(Object.keys(response.body)).toEqual(['token', 'refresh_token']);
      expect(response.body.token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
      expect(response.headers.link).toBe(HYDRA_LINK);
      expect((await send('GET', ann.iri, response.body.token)).status).toBe(200);
    });

    it('answers 401 for a wrong password or an unknown e-mail', async () => {
      for (const payload of [
        { email: 'ann@example.com', password: 'wrong password' },
        { email: 'nobody@example.com', password: PASSWORD },
        { email: ADMIN.email, password: PASSWORD },
      ]) {
        const response = await send('POST', '/api/auth', undefined, payload);
        expect(response.status, payload.email).toBe(401);
        expect(response.body, payload.email).toEqual(errorBody(401, 'Invalid credentials.'));
        expect(response.headers['www-authenticate']).toBe('Bearer');
        expect(response.headers.link).toBe(HYDRA_LINK);
      }
      const plain = await call(app, {
        method: 'POST',
        url: '/api/auth',
        headers: { accept: 'application/json' },
        payload: { email: 'ann@example.com', password: 'wrong password' },
      });
      expect(plain.status).toBe(401);
      expect(plain.headers['content-type']).toBe('application/problem+json; charset=utf-8');
      expect(plain.body).toEqual({
        type: '/errors/401',
        title: 'An error occurred',
        detail: 'Invalid credentials.',
        status: 401,
      });
    });

    it('answers 413 to a body above 1 MiB and 415 to a body that is not JSON', async () => {
      const big = await call(app, {
        method: 'POST',
        url: '/api/auth',
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify({ email: 'ann@example.com', password: 'x'.repeat(1024 * 1024) }),
      });
      expect(big.status).toBe(413);
      expect(big.body).toEqual(errorBody(413, 'The request body is too large.'));
      const form = await call(app, {
        method: 'POST',
        url: '/api/auth',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'email=ann%40example.com&password=correct+horse+battery',
      });
      expect(form.status).toBe(415);
    });

    it('answers 400 for missing fields', async () => {
      const cases: Array<[object, string]> = [
        [{ email: 'ann@example.com' }, 'password'],
        [{ password: PASSWORD }, 'email'],
        [{}, 'email'],
        [{ email: '', password: PASSWORD }, 'email'],
        [{ email: 'ann@example.com', password: '' }, 'password'],
      ];
      for (const [payload, missing] of cases) {
        const response = await send('POST', '/api/auth', undefined, payload);
        expect(response.status, JSON.stringify(payload)).toBe(400);
        expect(response.body, JSON.stringify(payload)).toEqual(
          errorBody(400, `The key "${missing}" must be provided.`),
        );
      }
    });
  });

  describe('tokens', () => {
    it('are HS256 JWTs with the claims sub (the user id), email, iat and exp (one hour by default), and the login and the issue instant in ms', async () => {
      const before = now();
      const token = await login(app, 'ann@example.com');
      const [head, payload, signature] = token.split('.');
      expect(JSON.parse(Buffer.from(head!, 'base64url').toString())).toEqual({ alg: 'HS256', typ: 'JWT' });
      expect(signature).toBe(hmac(`${head}.${payload}`, TEST_JWT_SECRET));
      const body = claims(token);
      // `sid` names the login (logout revokes its refresh tokens); `iat_ms` is `iat` in milliseconds, precise enough to
      // tell a token issued just before a password change from one issued just after.
      expect(body).toEqual({
        sub: '2',
        email: 'ann@example.com',
        sid: expect.any(String),
        iat: expect.any(Number),
        iat_ms: expect.any(Number),
        exp: expect.any(Number),
      });
      expect(Math.floor((body.iat_ms as number) / 1000)).toBe(body.iat);
      expect(body.iat as number).toBeGreaterThanOrEqual(before - 1);
      expect(body.iat as number).toBeLessThanOrEqual(now() + 1);
      expect((body.exp as number) - (body.iat as number)).toBe(3600);
      // issueToken gives the same claims.
      const issued = claims(await app.resourceApi.issueToken({ id: 3, email: 'bob@example.com' }));
      expect(issued).toEqual({
        sub: '3',
        email: 'bob@example.com',
        iat: expect.any(Number),
        iat_ms: expect.any(Number),
        exp: (issued.iat as number) + 3600,
      });
    });

    it('refuses tampered, expired, wrongly signed, unsigned (alg: none) and malformed tokens with 401, on public operations too', async () => {
      const good = ann.token;
      const [head, payload, signature] = good.split('.') as [string, string, string];
      const asAdminClaims = base64url({ ...claims(good), sub: '1', email: ADMIN.email });
      const tokens: Record<string, string> = {
        'tampered (sub of the admin, signature kept)': `${head}.${asAdminClaims}.${signature}`,
        'tampered (longer lifetime)': `${head}.${base64url({ ...claims(good), exp: now() + 999_999 })}.${signature}`,
        expired: craft({ sub: '2', email: 'ann@example.com', iat: now() - 7200, exp: now() - 60 }),
        'signed with another secret': craft(
          { sub: '2', email: 'ann@example.com', iat: now(), exp: now() + 600 },
          { secret: 'another-secret-that-is-long-enough-0123456789' },
        ),
        'signed with HS512': craft(
          { sub: '2', email: 'ann@example.com', iat: now(), exp: now() + 600 },
          { alg: 'HS512', hash: 'sha512' },
        ),
        'alg: none': `${base64url({ alg: 'none', typ: 'JWT' })}.${payload}.`,
        'alg: none, admin claims': `${base64url({ alg: 'none', typ: 'JWT' })}.${asAdminClaims}.`,
        'no subject': craft({ email: 'ann@example.com', iat: now(), exp: now() + 600 }),
        'an unknown subject': craft({ sub: '99', iat: now(), exp: now() + 600 }),
        malformed: 'not-a-jwt',
        'two parts': `${head}.${payload}`,
      };
      // The control: the same claims, signed here with the right secret, pass.
      const control = craft({ sub: '2', email: 'ann@example.com', iat: now(), exp: now() + 600 });
      expect((await send('GET', '/api/products', control)).status).toBe(200);
      expect((await send('GET', '/api/users', control)).status).toBe(403);

      const operations: Array<[Method, string, object?]> = [
        ['GET', '/api/books'],
        ['GET', '/api/categories'],
        ['GET', '/api/articles'],
        ['GET', '/api/comments'],
        ['GET', '/api/users/2/comments'],
        ['POST', '/api/authors', { name: 'Nobody' }],
        ['POST', '/api/users', { email: 'new@example.com', plainPassword: PASSWORD }],
        ['GET', '/api/products'],
        ['GET', '/api/users'],
      ];
      for (const [name, token] of Object.entries(tokens)) {
        for (const [method, url, body] of operations)
          expectInvalidToken(await send(method, url, token, body), `${name}: ${method} ${url}`);
      }
      for (const authorization of ['Basic YW5uOnNlY3JldA==', 'Bearer', `Token ${good}`]) {
        const response = await call(app, { method: 'GET', url: '/api/books', headers: { authorization } });
        expect(response.status, authorization).toBe(401);
      }
      // Nothing was written by the refused requests.
      expect((await send('GET', '/api/authors')).body['hydra:totalItems']).toBe(0);
      expect((await send('GET', '/api/users', admin)).body['hydra:totalItems']).toBe(3);
    });

    it('no longer work once their user is deleted', async () => {
      expect((await send('GET', ann.iri, ann.token)).status).toBe(200);
      expect((await send('DELETE', ann.iri, admin)).status).toBe(204);
      for (const [method, url] of [
        ['GET', '/api/books'],
        ['GET', ann.iri],
        ['POST', '/api/comments'],
      ] as const) {
        const response = await send(method, url, ann.token, method === 'POST' ? { content: 'Ghost' } : undefined);
        expectInvalidToken(response, `${method} ${url}`);
        expect(response.body.detail).toBe('Invalid JWT Token: the user no longer exists');
      }
      expect(
        (await send('POST', '/api/auth', undefined, { email: 'ann@example.com', password: PASSWORD })).status,
      ).toBe(401);
      expect((await send('GET', '/api/comments')).body['hydra:totalItems']).toBe(0);
    });

    it('carry no roles: a role taken away or given takes effect at once, the tokens issued before refused (401 invalid_token)', async () => {
      await create(app, 'users', { email: 'boss@example.com', plainPassword: PASSWORD, roles: ['ROLE_ADMIN'] }, admin);
      const boss = await login(app, 'boss@example.com');
      expect((await send('POST', '/api/categories', boss, { name: 'Books' })).status).toBe(201);
      expect((await send('PATCH', '/api/users/4', admin, { roles: [] })).body.roles).toEqual(['ROLE_USER']);
      for (const [response, what] of [
        [await send('POST', '/api/categories', boss, { name: 'Games' }), 'a former admin writes a category'],
        [await send('GET', '/api/users', boss), 'a former admin lists the users'],
      ] as const) {
        expect(response.status, what).toBe(401);
        expect(response.headers['www-authenticate'], what).toMatch(/^Bearer error="invalid_token"/);
        expect(response.body.detail, what).toBe(
          'Invalid JWT Token: the token was issued before the password or the roles of its user changed; log in again',
        );
      }
      expectForbidden(
        await send('GET', '/api/users', await login(app, 'boss@example.com')),
        'a former admin, logged in again, lists the users',
      );

      expectForbidden(await send('POST', '/api/brands', ann.token, { name: 'Acme' }), 'ann writes a brand');
      expect((await send('PATCH', ann.iri, admin, { roles: ['ROLE_ADMIN'] })).status).toBe(200);
      expect((await send('POST', '/api/brands', ann.token, { name: 'Acme' })).status).toBe(401);
      expect((await send('POST', '/api/brands', await login(app, 'ann@example.com'), { name: 'Acme' })).status).toBe(
        201,
      );
      expect((await send('GET', '/api/categories')).body['hydra:totalItems']).toBe(1);
    });
  });

  describe('anonymous callers', () => {
    it('get 401 on every protected operation before anything is looked up, even for items that do not exist', async () => {
      const body = { name: 'x', title: 'x', content: 'long enough content', email: 'x@example.com' };
      const protectedOperations: Array<[Method, string]> = [
        ['PUT', '/api/articles/999'],
        ['PATCH', '/api/articles/999'],
        ['DELETE', '/api/articles/999'],
        ['POST', '/api/articles'],
        ['PUT', '/api/comments/999'],
        ['PATCH', '/api/comments/999'],
        ['DELETE', '/api/comments/999'],
        ['POST', '/api/comments'],
        ['GET', '/api/users'],
        ['GET', '/api/users/999'],
        ['PUT', '/api/users/999'],
        ['PATCH', '/api/users/999'],
        ['DELETE', '/api/users/999'],
        ['GET', '/api/users/2'],
        ['PATCH', '/api/users/2'],
        ['DELETE', '/api/users/2'],
        ['GET', '/api/products'],
        ['GET', '/api/products/999'],
        ['POST', '/api/products'],
        ['PUT', '/api/products/999'],
        ['PATCH', '/api/products/999'],
        ['DELETE', '/api/products/999'],
        ['GET', '/api/categories/999/products'],
        ['POST', '/api/categories'],
        ['PUT', '/api/categories/999'],
        ['PATCH', '/api/categories/999'],
        ['DELETE', '/api/categories/999'],
        ['POST', '/api/brands'],
        ['PUT', '/api/brands/999'],
        ['PATCH', '/api/brands/999'],
        ['DELETE', '/api/brands/999'],
      ];
      for (const [method, url] of protectedOperations) {
        expectUnauthenticated(
          await send(method, url, undefined, method === 'GET' || method === 'DELETE' ? undefined : body),
          `${method} ${url}`,
        );
      }
      // With a token the same missing items are looked up, and are 404.
      for (const [method, url] of [
        ['PUT', '/api/articles/999'],
        ['PATCH', '/api/comments/999'],
        ['GET', '/api/users/999'],
        ['GET', '/api/products/999'],
        ['DELETE', '/api/brands/999'],
        ['GET', '/api/categories/999/products'],
      ] as const) {
        expect(
          (await send(method, url, admin, method === 'GET' || method === 'DELETE' ? undefined : body)).status,
          `${method} ${url}`,
        ).toBe(404);
      }
      // Nothing was created.
      for (const collection of ['articles', 'comments', 'categories', 'brands'])
        expect((await send('GET', `/api/${collection}`)).body['hydra:totalItems'], collection).toBe(0);
      expect((await send('GET', '/api/products', admin)).body['hydra:totalItems']).toBe(0);
    });

    it("read the public operations: categories, brands, comments, articles, users' comments, authors and books", async () => {
      await create(app, 'categories', { name: 'Books' }, admin);
      await create(app, 'brands', { name: 'Penguin' }, admin);
      await create(app, 'comments', { content: 'A fine book.' }, ann.token);
      await create(app, 'articles', { title: 'On engines' }, ann.token);
      const author = await create(app, 'authors', { name: 'Frank Herbert' });
      const book = await create(app, 'books', { title: 'Dune', author: author['@id'] });
      expect(book.author).toBe('/api/authors/1');
      for (const url of [
        '/api/categories',
        '/api/categories/1',
        '/api/brands',
        '/api/brands/1',
        '/api/comments',
        '/api/comments/1',
        '/api/articles',
        '/api/articles/1',
        '/api/users/2/comments',
        '/api/authors/1',
        '/api/books/1',
      ]) {
        const response = await send('GET', url);
        expect(response.status, url).toBe(200);
      }
      const comments = await send('GET', '/api/users/2/comments');
      expect(comments.body['hydra:member']).toEqual([
        expect.objectContaining({ '@id': '/api/comments/1', content: 'A fine book.', user: '/api/users/2' }),
      ]);
      expect((await send('GET', '/api/users/3/comments')).body['hydra:member']).toEqual([]);
      expect((await send('GET', '/api/comments?user=/api/users/2')).body['hydra:totalItems']).toBe(1);
    });
  });

  describe('categories and brands', () => {
    it('are read by anyone and written by admins only', async () => {
      for (const collection of ['categories', 'brands']) {
        const created = await send('POST', `/api/${collection}`, admin, { name: 'First' });
        expect(created.status, collection).toBe(201);
        const item = `/api/${collection}/1`;
        expectForbidden(
          await send('POST', `/api/${collection}`, ann.token, { name: 'Second' }),
          `ann POST ${collection}`,
        );
        expectForbidden(await send('PUT', item, ann.token, { name: 'Renamed' }), `ann PUT ${item}`);
        expectForbidden(await send('PATCH', item, ann.token, { name: 'Renamed' }), `ann PATCH ${item}`);
        expectForbidden(await send('DELETE', item, ann.token), `ann DELETE ${item}`);
        expectUnauthenticated(await send('PUT', item, undefined, { name: 'Renamed' }), `anonymous PUT ${item}`);
        expectUnauthenticated(await send('DELETE', item), `anonymous DELETE ${item}`);
        const unchanged = await send('GET', `/api/${collection}`);
        expect(unchanged.status).toBe(200);
        expect(
          unchanged.body['hydra:member'].map((member: { name: string }) => member.name),
          collection,
        ).toEqual(['First']);

        expect((await send('PUT', item, admin, { name: 'Renamed' })).body.name).toBe('Renamed');
        expect((await send('PATCH', item, admin, { name: 'Patched' })).body.name).toBe('Patched');
        expect((await send('GET', item)).body.name).toBe('Patched');
        expect((await send('DELETE', item, admin)).status).toBe(204);
        expect((await send('GET', item)).status).toBe(404);
      }
    });
  });

  describe('products', () => {
    it('are read by users (ROLE_USER), also through /api/categories/{id}/products, and written by admins only', async () => {
      await create(app, 'categories', { name: 'Books' }, admin);
      const product = { name: 'Dune', price: 9.9, category: '/api/categories/1' };
      expectUnauthenticated(await send('POST', '/api/products', undefined, product), 'anonymous POST');
      expectForbidden(await send('POST', '/api/products', ann.token, product), 'ann POST');
      expect((await send('POST', '/api/products', admin, product)).status).toBe(201);

      for (const url of ['/api/products', '/api/products/1', '/api/categories/1/products']) {
        expectUnauthenticated(await send('GET', url), `anonymous GET ${url}`);
        const read = await send('GET', url, bob.token);
        expect(read.status, url).toBe(200);
      }
      expect((await send('GET', '/api/categories/1/products', bob.token)).body['hydra:member']).toEqual([
        expect.objectContaining({ '@id': '/api/products/1', name: 'Dune' }),
      ]);

      expectForbidden(await send('PUT', '/api/products/1', ann.token, { ...product, price: 1 }), 'ann PUT');
      expectForbidden(await send('PATCH', '/api/products/1', ann.token, { price: 1 }), 'ann PATCH');
      expectForbidden(await send('DELETE', '/api/products/1', ann.token), 'ann DELETE');
      expect((await send('GET', '/api/products/1', ann.token)).body.price).toBe(9.9);
      expect((await send('PUT', '/api/products/1', admin, { ...product, price: 8 })).body.price).toBe(8);
      expect((await send('PATCH', '/api/products/1', admin, { price: 7 })).body.price).toBe(7);
      expect((await send('DELETE', '/api/products/1', admin)).status).toBe(204);
      expect((await send('GET', '/api/products/1', ann.token)).status).toBe(404);
    });
  });

  describe('users', () => {
    it('are listed by admins only', async () => {
      expectUnauthenticated(await send('GET', '/api/users'), 'anonymous');
      expectForbidden(await send('GET', '/api/users', ann.token), 'ann');
      const list = await send('GET', '/api/users', admin);
      expect(list.status).toBe(200);
      expect(
        list.body['hydra:member'].map((user: { email: string; roles: string[] }) => [user.email, user.roles]),
      ).toEqual([
        [ADMIN.email, ['ROLE_USER', 'ROLE_SUPER_ADMIN']],
        ['ann@example.com', ['ROLE_USER']],
        ['bob@example.com', ['ROLE_USER']],
      ]);
    });

    it('are read, replaced and patched by an admin or themselves only', async () => {
      const self = await send('GET', ann.iri, ann.token);
      expect(self.body).toEqual({
        '@context': '/api/contexts/User',
        '@id': ann.iri,
        '@type': 'User',
        id: 2,
        email: 'ann@example.com',
        comments: [],
      });
      expect((await send('GET', ann.iri, admin)).body).toEqual({ ...self.body, roles: ['ROLE_USER'] });
      expectForbidden(await send('GET', ann.iri, bob.token), 'bob GET ann');
      expectForbidden(await send('PUT', ann.iri, bob.token, { email: 'bob-was-here@example.com' }), 'bob PUT ann');
      expectForbidden(
        await send('PATCH', ann.iri, bob.token, { email: 'bob-was-here@example.com', plainPassword: 'bob-knows-it' }),
        'bob PATCH ann',
      );
      expect(
        (await send('POST', '/api/auth', undefined, { email: 'ann@example.com', password: PASSWORD })).status,
      ).toBe(200);
      expect((await send('GET', ann.iri, admin)).body.email).toBe('ann@example.com');

      expect((await send('PATCH', ann.iri, ann.token, { email: 'ann.b@example.com' })).body.email).toBe(
        'ann.b@example.com',
      );
      expect((await send('PUT', ann.iri, ann.token, { email: 'ann.c@example.com' })).body.email).toBe(
        'ann.c@example.com',
      );
      expect((await send('PATCH', ann.iri, admin, { email: 'ann.d@example.com' })).body).toEqual({
        ...self.body,
        email: 'ann.d@example.com',
        roles: ['ROLE_USER'],
      });
      expect((await send('PUT', ann.iri, admin, { email: 'ann@example.com' })).body.email).toBe('ann@example.com');
      // The same token still works: the user is found by its id.
      expect((await send('GET', ann.iri, ann.token)).body.email).toBe('ann@example.com');
    });

    it('are deleted by admins only, not even by themselves', async () => {
      expectForbidden(await send('DELETE', ann.iri, ann.token), 'ann deletes herself');
      expectForbidden(await send('DELETE', ann.iri, bob.token), 'bob deletes ann');
      expect((await send('GET', ann.iri, ann.token)).status).toBe(200);
      expect((await send('DELETE', ann.iri, admin)).status).toBe(204);
      expect((await send('GET', ann.iri, admin)).status).toBe(404);
      expect((await send('GET', '/api/users', admin)).body['hydra:totalItems']).toBe(2);
    });

    it('cannot raise their own privileges through the payload', async () => {
      const attempts: Array<[Method, object]> = [
        ['PATCH', { roles: ['ROLE_ADMIN'] }],
        ['PUT', { email: 'ann@example.com', roles: ['ROLE_SUPER_ADMIN'] }],
        ['PATCH', { isCompany: true }],
        ['PATCH', { roles: ['ROLE_ADMIN'], isCompany: true, id: 1, '@id': '/api/users/1' }],
      ];
      for (const [method, payload] of attempts) {
        const response = await send(method, ann.iri, ann.token, payload);
        expect(response.status, JSON.stringify(payload)).toBe(200);
        expect(response.body).toEqual({
          '@context': '/api/contexts/User',
          '@id': ann.iri,
          '@type': 'User',
          id: 2,
          email: 'ann@example.com',
          comments: [],
        });
      }
      expect(storedRoles(await shop().row('user', 2))).toEqual(['ROLE_USER']);
      expect(Boolean((await shop().row('user', 2))!.is_company)).toBe(false);
      expect(storedRoles(await shop().row('user', 1))).toEqual(['ROLE_USER', 'ROLE_SUPER_ADMIN']);
      expect((await shop().row('user', 1))!.email).toBe(ADMIN.email);
      expectForbidden(await send('POST', '/api/categories', ann.token, { name: 'Mine' }), 'ann after the attempts');
      expectForbidden(await send('GET', '/api/users', ann.token), 'ann lists the users');
    });
  });

  describe('comments', () => {
    it('are written by users, always as themselves: a client user is ignored on create and on update', async () => {
      expectUnauthenticated(
        await send('POST', '/api/comments', undefined, { content: 'Anonymous', user: ann.iri }),
        'anonymous POST',
      );
      const created = await send('POST', '/api/comments', ann.token, { content: 'Signed by bob?', user: bob.iri });
      expect(created.status).toBe(201);
      expect(created.body.user).toBe(ann.iri);
      expect(
        (await send('PUT', '/api/comments/1', ann.token, { content: 'Still signed by ann.', user: bob.iri })).body.user,
      ).toBe(ann.iri);
      expect((await send('PATCH', '/api/comments/1', ann.token, { user: bob.iri })).body.user).toBe(ann.iri);
      expect((await send('PATCH', '/api/comments/1', ann.token, { user: null })).body.user).toBe(ann.iri);
      expect((await send('GET', '/api/comments?user=/api/users/3')).body['hydra:totalItems']).toBe(0);
      expect((await send('GET', '/api/users/2/comments')).body['hydra:totalItems']).toBe(1);
    });

    it('are replaced and patched by their user only: others and admins get 403', async () => {
      await create(app, 'comments', { content: 'Written by ann.' }, ann.token);
      for (const [who, token] of [
        ['bob', bob.token],
        ['the admin', admin],
      ] as const) {
        expectForbidden(await send('PUT', '/api/comments/1', token, { content: `Rewritten by ${who}.` }), `${who} PUT`);
        expectForbidden(
          await send('PATCH', '/api/comments/1', token, { content: `Patched by ${who}.` }),
          `${who} PATCH`,
        );
      }
      expectUnauthenticated(
        await send('PATCH', '/api/comments/1', undefined, { content: 'Patched by nobody.' }),
        'anonymous PATCH',
      );
      expect((await send('GET', '/api/comments/1')).body.content).toBe('Written by ann.');
      expect((await send('PUT', '/api/comments/1', ann.token, { content: 'Rewritten by ann.' })).status).toBe(200);
      expect((await send('PATCH', '/api/comments/1', ann.token, { content: 'Patched by ann, herself.' })).status).toBe(
        200,
      );
      expect((await send('GET', '/api/comments/1')).body).toMatchObject({
        content: 'Patched by ann, herself.',
        user: ann.iri,
      });
    });

    it('are deleted by an admin or their user', async () => {
      for (const content of ['First by ann.', 'Second by ann.']) await create(app, 'comments', { content }, ann.token);
      expectForbidden(await send('DELETE', '/api/comments/1', bob.token), 'bob DELETE');
      expectUnauthenticated(await send('DELETE', '/api/comments/1'), 'anonymous DELETE');
      expect((await send('GET', '/api/comments')).body['hydra:totalItems']).toBe(2);
      expect((await send('DELETE', '/api/comments/1', ann.token)).status).toBe(204);
      expect((await send('DELETE', '/api/comments/2', admin)).status).toBe(204);
      expect((await send('GET', '/api/comments')).body['hydra:totalItems']).toBe(0);
    });
  });

  describe('articles', () => {
    // Not published: only `POST /api/articles/{id}/publish` changes that (see beyond-crud.test.ts).
    const article = (id: number, title: string, owner: string, extra: object = {}) => ({
      '@context': '/api/contexts/Article',
      '@id': `/api/articles/${id}`,
      '@type': 'Article',
      id,
      title,
      owner,
      published: false,
      // Set by the framework on every write (article-timestamps.test.ts checks their values).
      createdAt: expect.stringMatching(DATETIME),
      updatedAt: expect.stringMatching(DATETIME),
      ...extra,
    });

    it('are written by users, owned by the caller by default', async () => {
      expectUnauthenticated(await send('POST', '/api/articles', undefined, { title: 'Anonymous' }), 'anonymous POST');
      const created = await send('POST', '/api/articles', ann.token, { title: 'Mine' });
      expect(created.status).toBe(201);
      expect(created.body).toEqual(article(1, 'Mine', ann.iri));
      expect((await send('POST', '/api/articles', bob.token, { title: 'Mine too', owner: bob.iri })).body).toEqual(
        article(2, 'Mine too', bob.iri),
      );
    });

    it('refuse a POST, PUT or PATCH naming someone else as owner with 403, and change nothing', async () => {
      const foreign = await send('POST', '/api/articles', ann.token, { title: 'For bob', owner: bob.iri });
      expectForbidden(foreign, 'ann POSTs an article for bob', OWNER_ONLY);
      expectForbidden(
        await send('POST', '/api/articles', admin, { title: 'For ann', owner: ann.iri }),
        'the admin POSTs an article for ann',
        OWNER_ONLY,
      );
      expect((await send('GET', '/api/articles')).body['hydra:totalItems']).toBe(0);

      await create(app, 'articles', { title: 'Mine', body: 'Text.' }, ann.token);
      const before = (await send('GET', '/api/articles/1')).body;
      expect(before).toEqual(article(1, 'Mine', ann.iri, { body: 'Text.' }));
      expectForbidden(
        await send('PUT', '/api/articles/1', ann.token, { title: 'Given away', owner: bob.iri }),
        'ann PUTs her article to bob',
        OWNER_ONLY,
      );
      expectForbidden(
        await send('PATCH', '/api/articles/1', ann.token, { title: 'Given away', owner: bob.iri }),
        'ann PATCHes her article to bob',
        OWNER_ONLY,
      );
      expectForbidden(
        await send('PATCH', '/api/articles/1', ann.token, { owner: ADMIN.iri }),
        'ann PATCHes her article to the admin',
        OWNER_ONLY,
      );
      expect((await send('GET', '/api/articles/1')).body).toEqual(before);
      expect((await shop().row('article', 1))!.owner_id).toBe(2);
      // Naming herself is fine.
      expect((await send('PATCH', '/api/articles/1', ann.token, { title: 'Still mine', owner: ann.iri })).body).toEqual(
        article(1, 'Still mine', ann.iri, { body: 'Text.' }),
      );
      // A PUT that leaves the owner out gives it its default back: the caller.
      const replaced = await send('PUT', '/api/articles/1', ann.token, { title: 'Replaced' });
      expect(replaced.status).toBe(200);
      expect(replaced.body).toEqual(article(1, 'Replaced', ann.iri));
    });

    it('are replaced and patched by their owner only, admins included, with "Only the owner can edit this article."', async () => {
      await create(app, 'articles', { title: 'Mine' }, ann.token);
      for (const [who, token] of [
        ['bob', bob.token],
        ['the admin', admin],
      ] as const) {
        expectForbidden(
          await send('PUT', '/api/articles/1', token, { title: `By ${who}`, owner: ann.iri }),
          `${who} PUT`,
          OWNER_ONLY,
        );
        expectForbidden(
          await send('PATCH', '/api/articles/1', token, { title: `By ${who}` }),
          `${who} PATCH`,
          OWNER_ONLY,
        );
        // Naming themselves as the new owner does not help: the rule is checked against the stored owner first.
        const self = token === admin ? ADMIN.iri : bob.iri;
        expectForbidden(
          await send('PATCH', '/api/articles/1', token, { owner: self }),
          `${who} takes it with PATCH`,
          OWNER_ONLY,
        );
        expectForbidden(
          await send('PUT', '/api/articles/1', token, { title: `Taken by ${who}`, owner: self }),
          `${who} takes it with PUT`,
          OWNER_ONLY,
        );
      }
      expectUnauthenticated(
        await send('PATCH', '/api/articles/1', undefined, { title: 'By nobody' }),
        'anonymous PATCH',
      );
      expect((await send('GET', '/api/articles/1')).body).toEqual(article(1, 'Mine', ann.iri));
      expect((await send('PUT', '/api/articles/1', ann.token, { title: 'Replaced', owner: ann.iri })).body).toEqual(
        article(1, 'Replaced', ann.iri),
      );
      expect((await send('PATCH', '/api/articles/1', ann.token, { body: 'Patched.' })).body).toEqual(
        article(1, 'Replaced', ann.iri, { body: 'Patched.' }),
      );
    });

    it('are deleted by an admin or their owner', async () => {
      await create(app, 'articles', { title: 'By ann' }, ann.token);
      await create(app, 'articles', { title: 'By bob' }, bob.token);
      expectForbidden(await send('DELETE', '/api/articles/1', bob.token), "bob deletes ann's");
      expectUnauthenticated(await send('DELETE', '/api/articles/1'), 'anonymous DELETE');
      expect((await send('GET', '/api/articles/1')).status).toBe(200);
      expect((await send('DELETE', '/api/articles/1', ann.token)).status).toBe(204);
      expect((await send('DELETE', '/api/articles/2', admin)).status).toBe(204);
      expect((await send('GET', '/api/articles')).body['hydra:totalItems']).toBe(0);
    });
  });
});

describe.each(databases)('JWT_TTL on $name', (database) => {
  const shop = useBookshop(database, { jwtTtl: jwtTtl({ JWT_TTL: '90' }) });

  it('sets the lifetime of the tokens of POST /api/auth and issueToken', async () => {
    const { app } = shop();
    const token = await login(app, ADMIN.email, ADMIN.password);
    const body = claims(token);
    expect((body.exp as number) - (body.iat as number)).toBe(90);
    expect(claims(shop().adminToken)).toMatchObject({ sub: '1', email: ADMIN.email });
    const issued = claims(shop().adminToken);
    expect((issued.exp as number) - (issued.iat as number)).toBe(90);
    expect((await call(app, { method: 'GET', url: '/api/users', headers: bearer(token) })).status).toBe(200);
  });
});

describe('the JWT_TTL setting', () => {
  it('defaults to 3600 seconds and takes a positive number of seconds only', () => {
    expect(jwtTtl({})).toBe(3600);
    expect(jwtTtl({ JWT_TTL: '120' })).toBe(120);
    for (const bad of ['0', '-5', '1.5', 'an hour'])
      expect(() => jwtTtl({ JWT_TTL: bad }), bad).toThrow(`JWT_TTL "${bad}" must be a positive number of seconds.`);
  });
});

describe('the JWT_SECRET setting', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'bookshop-secret-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('is required in production: without it the app refuses to start, and writes no file', () => {
    const file = join(dir, 'var', 'jwt-secret');
    const warnings: string[] = [];
    for (const env of [{ NODE_ENV: 'production' }, { NODE_ENV: 'production', JWT_SECRET: '   ' }]) {
      expect(() => jwtSecret(env, file, (message) => warnings.push(message))).toThrow(
        'JWT_SECRET is required when NODE_ENV=production: the app refuses to start without it.',
      );
    }
    expect(existsSync(file)).toBe(false);
    expect(warnings).toEqual([]);
    const secret = 'a-production-secret-that-is-long-enough-0123';
    expect(jwtSecret({ NODE_ENV: 'production', JWT_SECRET: secret }, file)).toBe(secret);
    expect(() => jwtSecret({ NODE_ENV: 'production', JWT_SECRET: 'too-short' }, file)).toThrow(
      'JWT_SECRET must be at least 32 bytes long.',
    );
    expect(() => jwtSecret({ JWT_SECRET: 'too-short' }, file)).toThrow('JWT_SECRET must be at least 32 bytes long.');
  });

  it('is generated once in development when unset, kept in a file with a warning, and reused', async () => {
    const file = join(dir, 'var', 'jwt-secret');
    const warnings: string[] = [];
    const warn = (message: string) => warnings.push(message);
    const first = jwtSecret({}, file, warn);
    expect(Buffer.byteLength(first)).toBeGreaterThanOrEqual(32);
    expect(readFileSync(file, 'utf8')).toBe(first);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(warnings).toEqual([
      `JWT_SECRET is not set: generated a development secret in ${file}. Set JWT_SECRET in production.`,
    ]);

    expect(jwtSecret({ NODE_ENV: 'development' }, file, warn)).toBe(first);
    expect(jwtSecret({}, file, warn)).toBe(first);
    expect(warnings).toHaveLength(1);
    // JWT_SECRET, when set, wins over the file.
    expect(jwtSecret({ JWT_SECRET: 'an-explicit-secret-that-is-long-enough-01' }, file, warn)).toBe(
      'an-explicit-secret-that-is-long-enough-01',
    );

    // Another file, another secret.
    const other = jwtSecret({}, join(dir, 'other'), warn);
    expect(other).not.toBe(first);
    expect(warnings).toHaveLength(2);

    // The generated secret is one the app takes, and tokens signed with it outlive a restart that reads the file again.
    const shop = await buildBookshop({
      database: 'sqlite::memory:',
      jwtSecret: first,
      admin: { email: ADMIN.email, password: ADMIN.password },
    });
    try {
      const token = await login(shop, ADMIN.email, ADMIN.password);
      expect(token.split('.')[2]).toBe(hmac(token.split('.').slice(0, 2).join('.'), jwtSecret({}, file, warn)));
      expect((await call(shop, { method: 'GET', url: '/api/users', headers: bearer(token) })).status).toBe(200);
    } finally {
      await shop.close();
    }
  });

  it('makes the compiled server exit with a clear message when NODE_ENV=production and JWT_SECRET is unset', async () => {
    await ensureBuilt();
    const port = await freePort();
    const server = startNode(mainJs, {
      NODE_ENV: 'production',
      HOST: '127.0.0.1',
      PORT: String(port),
      DATABASE_URL: 'sqlite::memory:',
    });
    const code = await server.exit;
    expect(code, server.output()).not.toBe(0);
    expect(code).not.toBeNull();
    expect(server.output()).toContain('The bookshop could not start:');
    expect(server.output()).toContain(
      'JWT_SECRET is required when NODE_ENV=production: the app refuses to start without it.',
    );
    expect(server.output()).not.toContain('Bookshop API listening');
    await expect(fetch(`http://127.0.0.1:${port}/api`)).rejects.toThrow();
  }, 180_000);
});

describe('the ADMIN_EMAIL / ADMIN_PASSWORD settings', () => {
  it('go together', () => {
    expect(firstAdmin({})).toBeUndefined();
    expect(firstAdmin({ ADMIN_EMAIL: ' root@example.com ', ADMIN_PASSWORD: 'root-password' })).toEqual({
      email: 'root@example.com',
      password: 'root-password',
    });
    expect(() => firstAdmin({ ADMIN_EMAIL: 'root@example.com' })).toThrow(
      'ADMIN_EMAIL and ADMIN_PASSWORD go together.',
    );
    expect(() => firstAdmin({ ADMIN_PASSWORD: 'root-password' })).toThrow(
      'ADMIN_EMAIL and ADMIN_PASSWORD go together.',
    );
  });
});

describe.each(databases)('the first admin (ADMIN_EMAIL / ADMIN_PASSWORD) on $name', (database) => {
  let shared: SharedDatabase | undefined;
  afterEach(async () => {
    await shared?.drop();
    shared = undefined;
  });

  /** Starts the bookshop on the shared database with the admin of `env`, runs `use`, closes it. */
  async function start<T>(env: NodeJS.ProcessEnv, use: (app: FastifyInstance) => Promise<T>): Promise<T> {
    const admin = firstAdmin(env);
    const app = await buildBookshop({ ...shared!.options, jwtSecret: TEST_JWT_SECRET, ...(admin ? { admin } : {}) });
    try {
      return await use(app);
    } finally {
      await app.close();
    }
  }
  const auth = (app: FastifyInstance, email: string, password: string) =>
    call(app, { method: 'POST', url: '/api/auth', payload: { email, password } });

  it('creates the admin at start and, on a later start with another password, updates it', async () => {
    shared = sharedDatabase(database);
    let first = '';
    await start({ ADMIN_EMAIL: 'root@example.com', ADMIN_PASSWORD: 'first-password' }, async (app) => {
      const login = await auth(app, 'root@example.com', 'first-password');
      expect(login.status).toBe(200);
      first = login.body.token;
      expect(claims(login.body.token)).toMatchObject({ sub: '1', email: 'root@example.com' });
      const users = await call(app, { method: 'GET', url: '/api/users', headers: bearer(login.body.token) });
      expect(users.status).toBe(200);
      expect(users.body['hydra:member']).toEqual([
        {
          '@id': '/api/users/1',
          '@type': 'User',
          id: 1,
          email: 'root@example.com',
          roles: ['ROLE_USER', 'ROLE_SUPER_ADMIN'],
          comments: [],
        },
      ]);
      expect(
        (
          await call(app, {
            method: 'POST',
            url: '/api/categories',
            headers: bearer(login.body.token),
            payload: { name: 'Books' },
          })
        ).status,
      ).toBe(201);
    });

    await start({ ADMIN_EMAIL: 'root@example.com', ADMIN_PASSWORD: 'second-password' }, async (app) => {
      expect((await auth(app, 'root@example.com', 'first-password')).status).toBe(401);
      // The token issued with the old password is refused: whoever held it is locked out.
      expect((await call(app, { method: 'GET', url: '/api/users', headers: bearer(first) })).status).toBe(401);
      const login = await auth(app, 'root@example.com', 'second-password');
      expect(login.status).toBe(200);
      const users = await call(app, { method: 'GET', url: '/api/users', headers: bearer(login.body.token) });
      // Updated, not created again.
      expect(users.body['hydra:totalItems']).toBe(1);
      expect(users.body['hydra:member'][0]).toMatchObject({
        id: 1,
        email: 'root@example.com',
        roles: ['ROLE_USER', 'ROLE_SUPER_ADMIN'],
      });
    });

    // Without ADMIN_EMAIL the admin stays as it was.
    await start({}, async (app) => {
      expect((await auth(app, 'root@example.com', 'second-password')).status).toBe(200);
    });
  });

  it('gives ROLE_SUPER_ADMIN back to the admin the app created; a start that changes nothing keeps its tokens', async () => {
    shared = sharedDatabase(database);
    const env = { ADMIN_EMAIL: 'root@example.com', ADMIN_PASSWORD: 'root-password' };
    await start(env, async (app) => {
      const token = (await auth(app, 'root@example.com', 'root-password')).body.token;
      // The admin takes its roles away from itself; the next start gives ROLE_SUPER_ADMIN back.
      expect(
        (
          await call(app, {
            method: 'PATCH',
            url: '/api/users/1',
            headers: { ...bearer(token), ...MERGE_PATCH },
            payload: '{"roles": []}',
          })
        ).body.roles,
      ).toEqual(['ROLE_USER']);
    });
    let token = '';
    await start(env, async (app) => {
      token = (await auth(app, 'root@example.com', 'root-password')).body.token;
      const users = await call(app, { method: 'GET', url: '/api/users', headers: bearer(token) });
      expect(users.status).toBe(200);
      expect(users.body['hydra:member']).toEqual([
        expect.objectContaining({ id: 1, email: 'root@example.com', roles: ['ROLE_USER', 'ROLE_SUPER_ADMIN'] }),
      ]);
    });
    await start(env, async (app) => {
      // Same password, same roles: nothing written, the token of the last start still works.
      expect((await call(app, { method: 'GET', url: '/api/users', headers: bearer(token) })).status).toBe(200);
    });
  });

  it('takes as its own the admin an earlier version made (ROLE_ADMIN, no mark), and makes it the super admin', async () => {
    shared = sharedDatabase(database);
    await start({}, async (app) => {
      await registerAndLogin(app, 'root@example.com');
      await app.resourceApi.database
        .knex('user')
        .where('id', 1)
        .update({ roles: JSON.stringify(['ROLE_USER', 'ROLE_ADMIN']) });
    });
    await start({ ADMIN_EMAIL: 'root@example.com', ADMIN_PASSWORD: 'root-password' }, async (app) => {
      const token = (await auth(app, 'root@example.com', 'root-password')).body.token;
      const users = await call(app, { method: 'GET', url: '/api/users', headers: bearer(token) });
      expect(users.body['hydra:member']).toEqual([
        expect.objectContaining({ id: 1, roles: ['ROLE_USER', 'ROLE_ADMIN', 'ROLE_SUPER_ADMIN'] }),
      ]);
    });
  });

  it('refuses to start when ADMIN_EMAIL names an account the app did not create (whatever its letter case), and changes nothing of it', async () => {
    shared = sharedDatabase(database);
    await start({}, async (app) => {
      await registerAndLogin(app, 'ann@example.com');
    });
    for (const email of ['ann@example.com', 'Ann@Example.COM']) {
      await expect(start({ ADMIN_EMAIL: email, ADMIN_PASSWORD: 'taken-over' }, async () => undefined)).rejects.toThrow(
        'ADMIN_EMAIL names an account the app did not create: the app refuses to start. The account "ann@example.com" (user 1) was not created by the app and lacks ROLE_SUPER_ADMIN: it is not promoted',
      );
    }
    await start({}, async (app) => {
      expect((await auth(app, 'ann@example.com', 'taken-over')).status).toBe(401);
      const token = (await auth(app, 'ann@example.com', PASSWORD)).body.token;
      expect((await call(app, { method: 'GET', url: '/api/users', headers: bearer(token) })).status).toBe(403);
      expect(
        await app.resourceApi.database.knex('user').where('id', 1).first('roles', 'resource_api_provisioned_at'),
      ).toMatchObject({ resource_api_provisioned_at: null });
    });
  });
});
