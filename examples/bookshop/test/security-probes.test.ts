/** The bookshop's access rules probed from outside: privilege escalation through writes, GraphQL access, bad headers and tokens, login bodies. */
import { describe, expect, it } from 'vitest';
import {
  ADMIN,
  bearer,
  call,
  databases,
  MERGE_PATCH,
  registerAndLogin,
  storedRoles,
  TEST_JWT_SECRET,
  useBookshop,
} from './support.js';
import { createHmac } from 'node:crypto';

const gql = (app: Parameters<typeof call>[0], query: string, token?: string) =>
  call(app, { method: 'POST', url: '/graphql', payload: { query }, headers: token ? bearer(token) : {} });
const hs = (header: object, payload: object, secret = TEST_JWT_SECRET) => {
  const enc = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const data = `${enc(header)}.${enc(payload)}`;
  return `${data}.${createHmac('sha256', secret).update(data).digest('base64url')}`;
};

describe.each(databases)('bookshop security probes on $name', (database) => {
  const shop = useBookshop(database);

  it('REST PATCH/PUT of oneself cannot grant roles', async () => {
    const { app } = shop();
    const ann = await registerAndLogin(app, 'ann@example.com');
    const patched = await call(app, {
      method: 'PATCH',
      url: ann.iri,
      headers: { ...ann.auth, ...MERGE_PATCH },
      payload: { roles: ['ROLE_ADMIN'] },
    });
    expect(patched.status, patched.text).toBe(200);
    const put = await call(app, {
      method: 'PUT',
      url: ann.iri,
      headers: ann.auth,
      payload: { email: 'ann@example.com', roles: ['ROLE_ADMIN'] },
    });
    expect([200, 400]).toContain(put.status);
    expect(storedRoles(await shop().row('user', ann.id))).toEqual(['ROLE_USER']);
  });

  it('GraphQL updateUser of oneself cannot grant roles', async () => {
    const { app } = shop();
    const ann = await registerAndLogin(app, 'ann@example.com');
    const response = await gql(
      app,
      `mutation { updateUser(input: { id: "${ann.iri}", roles: ["ROLE_ADMIN"] }) { user { id } } }`,
      ann.token,
    );
    expect(response.status).toBe(200);
    expect(storedRoles(await shop().row('user', ann.id))).toEqual(['ROLE_USER']);
  });

  it('GraphQL createUser anonymously cannot grant roles', async () => {
    const { app } = shop();
    const response = await gql(
      app,
      `mutation { createUser(input: { email: "eve@example.com", plainPassword: "password-123", roles: ["ROLE_ADMIN"] }) { user { id } } }`,
    );
    expect(response.status).toBe(200);
    const row = await app.resourceApi.database.knex('user').where('email', 'eve@example.com').first();
    expect(storedRoles(row)).toEqual(['ROLE_USER']);
  });

  it('GraphQL: a user cannot read another user through user(id:) or node(id:)', async () => {
    const { app } = shop();
    const ann = await registerAndLogin(app, 'ann@example.com');
    const direct = await gql(app, `{ user(id: "${ADMIN.iri}") { email } }`, ann.token);
    expect(JSON.stringify(direct.body)).not.toContain(ADMIN.email);
    const node = await gql(app, `{ node(id: "${ADMIN.iri}") { ... on User { email roles } } }`, ann.token);
    expect(JSON.stringify(node.body)).not.toContain(ADMIN.email);
    const anon = await gql(app, `{ node(id: "${ADMIN.iri}") { ... on User { email } } }`);
    expect(JSON.stringify(anon.body)).not.toContain(ADMIN.email);
  });

  it('GraphQL: nested user of a public comment does not leak email to anonymous callers', async () => {
    const { app } = shop();
    const ann = await registerAndLogin(app, 'ann@example.com');
    const c = await call(app, {
      method: 'POST',
      url: '/api/comments',
      headers: ann.auth,
      payload: { content: 'hello there world' },
    });
    expect(c.status, c.text).toBe(201);
    const response = await gql(app, `{ comments { edges { node { user { email roles } } } } }`);
    expect(JSON.stringify(response.body)).not.toContain('ann@example.com');
    const item = await gql(app, `{ comment(id: "${c.body['@id']}") { user { email } } }`);
    expect(JSON.stringify(item.body)).not.toContain('ann@example.com');
  });

  it('GraphQL: updateArticle giving the article to someone else is 403 and changes nothing', async () => {
    const { app } = shop();
    const ann = await registerAndLogin(app, 'ann@example.com');
    const bob = await registerAndLogin(app, 'bob@example.com');
    const a = await call(app, { method: 'POST', url: '/api/articles', headers: ann.auth, payload: { title: 'T' } });
    expect(a.status, a.text).toBe(201);
    const r = await gql(
      app,
      `mutation { updateArticle(input: { id: "${a.body['@id']}", owner: "${bob.iri}" }) { article { id } } }`,
      ann.token,
    );
    expect(r.body.errors?.[0]?.extensions?.status).toBe(403);
    const row = await shop().row('article', a.body.id);
    expect(row?.owner_id ?? row?.owner).toBe(ann.id);
  });

  it('GraphQL: updateComment cannot reassign the comment user', async () => {
    const { app } = shop();
    const ann = await registerAndLogin(app, 'ann@example.com');
    const bob = await registerAndLogin(app, 'bob@example.com');
    const c = await call(app, {
      method: 'POST',
      url: '/api/comments',
      headers: ann.auth,
      payload: { content: 'hello there world' },
    });
    const r = await gql(
      app,
      `mutation { updateComment(input: { id: "${c.body['@id']}", user: "${bob.iri}", content: "long enough content" }) { comment { id } } }`,
      ann.token,
    );
    const row = await shop().row('comment', c.body.id);
    expect(row?.user_id ?? row?.user, JSON.stringify(r.body)).toBe(ann.id);
  });

  it('bad Authorization headers are 401 with WWW-Authenticate on a public operation', async () => {
    const { app } = shop();
    for (const authorization of [
      'Bearer',
      'Bearer ',
      'Basic abc',
      'Bearer a.b.c',
      'Bearer x y',
      'Bearer e30.e30.',
      `Bearer ${hs({ alg: 'none' }, { sub: '1' })}`,
    ]) {
      const r = await call(app, { method: 'GET', url: '/api/books', headers: { authorization } });
      expect(r.status, authorization).toBe(401);
      expect(r.headers['www-authenticate'], authorization).toMatch(/^Bearer/);
    }
  });

  it('tokens: wrong sub types, expired, nbf in the future, unsigned', async () => {
    const { app } = shop();
    const now = Math.floor(Date.now() / 1000);
    const cases: Record<string, string> = {
      numericSub: hs({ alg: 'HS256' }, { sub: 1, iat: now, exp: now + 100 }),
      iriSub: hs({ alg: 'HS256' }, { sub: '/api/users/1', iat: now, exp: now + 100 }),
      expired: hs({ alg: 'HS256' }, { sub: '1', iat: now - 7200, exp: now - 3600 }),
      nbf: hs({ alg: 'HS256' }, { sub: '1', iat: now, nbf: now + 3600, exp: now + 7200 }),
      headerNull: `${Buffer.from('null').toString('base64url')}.${Buffer.from(JSON.stringify({ sub: '1' })).toString('base64url')}.x`,
      wrongSecret: hs(
        { alg: 'HS256' },
        { sub: '1', iat: now, exp: now + 100 },
        'another-secret-0123456789-abcdefghijklmnop',
      ),
      subZero: hs({ alg: 'HS256' }, { sub: '0', iat: now, exp: now + 100 }),
      subHuge: hs({ alg: 'HS256' }, { sub: '99999999999999999999', iat: now, exp: now + 100 }),
      subMissing: hs({ alg: 'HS256' }, { sub: '999', iat: now, exp: now + 100 }),
    };
    for (const [name, token] of Object.entries(cases)) {
      const r = await call(app, { method: 'GET', url: '/api/products', headers: bearer(token) });
      expect(r.status, `${name}: ${r.text}`).toBe(401);
    }
  });

  it('a signed token without exp is refused (401): tokens always carry exp', async () => {
    const { app } = shop();
    const now = Math.floor(Date.now() / 1000);
    const token = hs({ alg: 'HS256' }, { sub: '1', email: ADMIN.email, iat: now });
    const r = await call(app, { method: 'GET', url: '/api/products', headers: bearer(token) });
    expect(r.status).toBe(401);
  });

  it('login: wrong types and odd bodies are 400, not 500', async () => {
    const { app } = shop();
    for (const payload of [
      'null',
      '[]',
      '"x"',
      '{"email": 1, "password": "x"}',
      '{"email": "a@b.c", "password": ["x"]}',
      '{"email": {"$ne": 1}, "password": "x"}',
      '{"email": "a@b.c", "password": "x", "__proto__": {"email": "b"}}',
    ]) {
      const r = await call(app, {
        method: 'POST',
        url: '/api/auth',
        headers: { 'content-type': 'application/json' },
        payload,
      });
      expect([400, 401], `${payload}: ${r.text}`).toContain(r.status);
    }
  });

  it('a removed role takes effect at once, and a deleted user token is 401', async () => {
    const { app } = shop();
    const ann = await registerAndLogin(app, 'ann@example.com');
    await app.resourceApi.database
      .knex('user')
      .where('id', ann.id)
      .update({ roles: JSON.stringify(['ROLE_ADMIN']) });
    expect((await call(app, { method: 'GET', url: '/api/users', headers: ann.auth })).status).toBe(200);
    await app.resourceApi.database
      .knex('user')
      .where('id', ann.id)
      .update({ roles: JSON.stringify(['ROLE_USER']) });
    expect((await call(app, { method: 'GET', url: '/api/users', headers: ann.auth })).status).toBe(403);
    const del = await call(app, { method: 'DELETE', url: ann.iri, headers: bearer(shop().adminToken) });
    expect(del.status).toBe(204);
    expect((await call(app, { method: 'GET', url: '/api/books', headers: ann.auth })).status).toBe(401);
  });

  it('subresource /api/users/{id}/comments and graphql user comments do not leak emails or roles', async () => {
    const { app } = shop();
    const ann = await registerAndLogin(app, 'ann@example.com');
    await call(app, {
      method: 'POST',
      url: '/api/comments',
      headers: ann.auth,
      payload: { content: 'hello there world' },
    });
    const r = await call(app, { method: 'GET', url: `${ann.iri}/comments` });
    expect(r.status).toBe(200);
    expect(r.text).not.toContain('ann@example.com');
    const g = await gql(app, `{ user(id: "${ann.iri}") { comments { edges { node { content } } } } }`);
    expect(JSON.stringify(g.body)).not.toContain('hello there world');
  });

  it('GraphQL: a bad token is a 401 error even on a public query; anonymous on users is 401, ann on users is 403', async () => {
    const { app } = shop();
    const bad = await gql(app, '{ books { totalCount } }', 'not.a.token');
    expect(bad.body.errors?.[0]?.extensions?.status, JSON.stringify(bad.body)).toBe(401);
    const anon = await gql(app, '{ users { totalCount } }');
    expect(anon.body.errors?.[0]?.extensions?.status, JSON.stringify(anon.body)).toBe(401);
    const ann = await registerAndLogin(app, 'ann@example.com');
    const denied = await gql(app, '{ users { totalCount edges { node { email } } } }', ann.token);
    expect(denied.body.errors?.[0]?.extensions?.status, JSON.stringify(denied.body)).toBe(403);
    expect(JSON.stringify(denied.body)).not.toContain(ADMIN.email);
  });

  it('GraphQL: updateUser / deleteUser of someone else is 403 and changes nothing', async () => {
    const { app } = shop();
    const ann = await registerAndLogin(app, 'ann@example.com');
    const up = await gql(
      app,
      `mutation { updateUser(input: { id: "${ADMIN.iri}", email: "pwn@example.com" }) { user { email } } }`,
      ann.token,
    );
    expect(up.body.errors?.[0]?.extensions?.status, JSON.stringify(up.body)).toBe(403);
    const del = await gql(app, `mutation { deleteUser(input: { id: "${ann.iri}" }) { user { id } } }`, ann.token);
    expect(del.body.errors?.[0]?.extensions?.status, JSON.stringify(del.body)).toBe(403);
    expect((await shop().row('user', 1))?.email).toBe(ADMIN.email);
  });

  it('REST: PUT of an article naming another owner is 403; POST naming another owner is 403', async () => {
    const { app } = shop();
    const ann = await registerAndLogin(app, 'ann@example.com');
    const bob = await registerAndLogin(app, 'bob@example.com');
    const post = await call(app, {
      method: 'POST',
      url: '/api/articles',
      headers: ann.auth,
      payload: { title: 'T', owner: bob.iri },
    });
    expect(post.status, post.text).toBe(403);
    const a = await call(app, { method: 'POST', url: '/api/articles', headers: ann.auth, payload: { title: 'T' } });
    const put = await call(app, {
      method: 'PUT',
      url: a.body['@id'],
      headers: ann.auth,
      payload: { title: 'T2', owner: bob.iri },
    });
    expect(put.status, put.text).toBe(403);
    const adminPatch = await call(app, {
      method: 'PATCH',
      url: a.body['@id'],
      headers: { ...bearer(shop().adminToken), ...MERGE_PATCH },
      payload: { title: 'x' },
    });
    expect(adminPatch.status).toBe(403);
    expect(adminPatch.body.detail).toBe('Only the owner can edit this article.');
  });

  it('nested writes through Article.owner / Comment.user cannot create or modify users', async () => {
    const { app } = shop();
    const ann = await registerAndLogin(app, 'ann@example.com');
    const bodies = [
      { title: 'T', owner: { id: ann.iri, roles: ['ROLE_ADMIN'] } },
      { title: 'T', owner: { '@id': ann.iri, roles: ['ROLE_ADMIN'] } },
      { title: 'T', owner: { email: 'new@example.com', plainPassword: 'password-123', roles: ['ROLE_ADMIN'] } },
    ];
    for (const payload of bodies) {
      const r = await call(app, { method: 'POST', url: '/api/articles', headers: ann.auth, payload });
      expect(r.status, r.text).not.toBe(500);
    }
    for (const payload of [
      { content: 'hello there world', user: { id: ann.iri, roles: ['ROLE_ADMIN'] } },
      { content: 'hello there world', user: { email: 'n2@example.com', plainPassword: 'password-123' } },
    ]) {
      const r = await call(app, { method: 'POST', url: '/api/comments', headers: ann.auth, payload });
      expect(r.status, r.text).not.toBe(500);
    }
    expect(storedRoles(await shop().row('user', ann.id))).toEqual(['ROLE_USER']);
    const users = await app.resourceApi.database.knex('user').count({ n: '*' }).first();
    expect(Number(users?.n)).toBe(2);
    const g = await gql(
      app,
      `mutation { createArticle(input: { title: "T", owner: "${ADMIN.iri}" }) { article { id } } }`,
      ann.token,
    );
    expect(g.body.errors?.[0]?.extensions?.status, JSON.stringify(g.body)).toBe(403);
  });

  it('roles: ROLE_COMPANY survives self PUT/PATCH, isCompany on update grants nothing, ROLE_SUPER_ADMIN includes ROLE_ADMIN', async () => {
    const { app } = shop();
    const co = await registerAndLogin(app, 'co@example.com', { isCompany: true });
    expect(storedRoles(await shop().row('user', co.id))).toEqual(['ROLE_USER', 'ROLE_COMPANY']);
    const put = await call(app, { method: 'PUT', url: co.iri, headers: co.auth, payload: { email: 'co@example.com' } });
    expect(put.status, put.text).toBe(200);
    const patch = await call(app, {
      method: 'PATCH',
      url: co.iri,
      headers: { ...co.auth, ...MERGE_PATCH },
      payload: { email: 'co2@example.com' },
    });
    expect(patch.status, patch.text).toBe(200);
    expect(storedRoles(await shop().row('user', co.id))).toEqual(['ROLE_USER', 'ROLE_COMPANY']);
    const ann = await registerAndLogin(app, 'ann@example.com');
    await call(app, {
      method: 'PATCH',
      url: ann.iri,
      headers: { ...ann.auth, ...MERGE_PATCH },
      payload: { isCompany: true },
    });
    await call(app, {
      method: 'PUT',
      url: ann.iri,
      headers: ann.auth,
      payload: { email: 'ann@example.com', isCompany: true },
    });
    expect(storedRoles(await shop().row('user', ann.id))).toEqual(['ROLE_USER']);
    await app.resourceApi.database
      .knex('user')
      .where('id', ann.id)
      .update({ roles: JSON.stringify(['ROLE_SUPER_ADMIN']) });
    const list = await call(app, { method: 'GET', url: '/api/users', headers: ann.auth });
    expect(list.status).toBe(200);
    expect(list.body['hydra:member'][0]).toHaveProperty('roles');
    const prod = await call(app, { method: 'POST', url: '/api/categories', headers: ann.auth, payload: { name: 'C' } });
    expect(prod.status).toBe(201);
  });

  it('GraphQL: odd ids in node()/user() are errors or null, never a 500 or a leak; anonymous missing product is 401', async () => {
    const { app } = shop();
    const ann = await registerAndLogin(app, 'ann@example.com');
    for (const id of [
      '/api/users/abc',
      'x',
      '',
      '/api/users/0',
      '/api/users/99999999999999',
      '/api/books/1',
      '/api/users/1?x',
      'http://evil/api/users/1',
      '/api/users/1/comments',
    ]) {
      for (const q of [
        `{ node(id: ${JSON.stringify(id)}) { id ... on User { email } } }`,
        `{ user(id: ${JSON.stringify(id)}) { email } }`,
      ]) {
        const r = await gql(app, q, ann.token);
        expect(r.status, `${q}: ${r.text}`).toBe(200);
        expect(r.text, q).not.toContain(ADMIN.email);
        expect(r.text, q).not.toMatch(/"status":500|Internal Server Error/);
      }
    }
    const missing = await gql(app, '{ product(id: "/api/products/999") { id } }');
    expect(missing.body.errors?.[0]?.extensions?.status, missing.text).toBe(401);
  });
});
