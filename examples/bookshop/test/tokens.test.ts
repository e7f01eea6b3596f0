/**
 * The contract's "Authentication" section for issue 34, end to end: refresh tokens (`POST /api/auth/refresh`, rotation,
 * reuse), `POST /api/auth/logout`, `JWT_REFRESH_TTL`, tokens refused after a password change (the user's own
 * `POST /api/users/{id}/password`), login regardless of the e-mail's letter case, and the compiled server refusing to
 * start when `ADMIN_EMAIL` names an account it did not create (with a warn log line saying why).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildBookshop } from '../src/app.js';
import { ConfigError, loadConfig } from '../src/config.js';
import { ensureBuilt, freePort, mainJs, startNode } from './compiled.js';
import {
  bearer,
  call,
  claims,
  databases,
  PASSWORD,
  registerAndLogin,
  TEST_JWT_SECRET,
  useBookshop,
} from './support.js';

describe.each(databases)('refresh tokens, logout and revoked tokens on $name', (database) => {
  const shop = useBookshop(database);
  const refresh = (token: unknown) =>
    call(shop().app, { method: 'POST', url: '/api/auth/refresh', payload: { refresh_token: token } });
  const loginPair = async (email: string, password = PASSWORD) => {
    const response = await call(shop().app, { method: 'POST', url: '/api/auth', payload: { email, password } });
    expect(response.status, response.text).toBe(200);
    return response.body as { token: string; refresh_token: string };
  };

  it('POST /api/auth/refresh gives a new pair and retires the old refresh token; using it again revokes the login (401)', async () => {
    const ann = await registerAndLogin(shop().app, 'ann@example.com');
    const first = await loginPair('ann@example.com');
    const next = await refresh(first.refresh_token);
    expect(next.status, next.text).toBe(200);
    expect(next.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(Object.keys(next.body)).toEqual(['token', 'refresh_token']);
    expect(claims(next.body.token)).toMatchObject({ sub: String(ann.id), email: 'ann@example.com' });
    expect((await call(shop().app, { method: 'GET', url: ann.iri, headers: bearer(next.body.token) })).status).toBe(
      200,
    );

    const reused = await refresh(first.refresh_token);
    expect(reused.status).toBe(401);
    expect(reused.body).toMatchObject({ '@context': '/api/contexts/Error', '@type': 'hydra:Error', status: 401 });
    expect((await refresh(next.body.refresh_token)).status).toBe(401);
  });

  it('POST /api/auth/logout with the access token revokes the login (204); bad refresh bodies are 400', async () => {
    await registerAndLogin(shop().app, 'ann@example.com');
    const pair = await loginPair('ann@example.com');
    const out = await call(shop().app, { method: 'POST', url: '/api/auth/logout', headers: bearer(pair.token) });
    expect(out.status).toBe(204);
    expect((await refresh(pair.refresh_token)).status).toBe(401);
    expect((await call(shop().app, { method: 'POST', url: '/api/auth/logout' })).status).toBe(401);
    const missing = await call(shop().app, { method: 'POST', url: '/api/auth/refresh', payload: {} });
    expect(missing.status).toBe(400);
    expect(missing.body.detail).toBe('The key "refresh_token" must be provided.');
  });

  it('refuses a token issued before the user changed their password (401 invalid_token), and its refresh token', async () => {
    const ann = await registerAndLogin(shop().app, 'ann@example.com');
    const pair = await loginPair('ann@example.com');
    const changed = await call(shop().app, {
      method: 'POST',
      url: `${ann.iri}/password`,
      headers: ann.auth,
      payload: { currentPassword: PASSWORD, newPassword: 'another-password' },
    });
    expect(changed.status, changed.text).toBe(204);
    for (const token of [ann.token, pair.token]) {
      const refused = await call(shop().app, { method: 'GET', url: ann.iri, headers: bearer(token) });
      expect(refused.status).toBe(401);
      expect(refused.headers['www-authenticate']).toMatch(/^Bearer error="invalid_token"/);
      expect(refused.body.detail).toMatch(/^Invalid JWT Token: /);
    }
    expect((await refresh(pair.refresh_token)).status).toBe(401);
    const fresh = await loginPair('ann@example.com', 'another-password');
    expect((await call(shop().app, { method: 'GET', url: ann.iri, headers: bearer(fresh.token) })).status).toBe(200);
  });

  it('logs in whatever the letter case of the e-mail address', async () => {
    await registerAndLogin(shop().app, 'alice@example.com');
    const pair = await loginPair('Alice@Example.COM');
    expect(claims(pair.token)).toMatchObject({ email: 'alice@example.com' });
  });
});

describe('the JWT_REFRESH_TTL setting', () => {
  const base = { JWT_SECRET: TEST_JWT_SECRET };
  it('defaults to 2,592,000 seconds and takes a positive number of seconds', () => {
    expect(loadConfig(base).jwtRefreshTtl).toBe(2_592_000);
    expect(loadConfig({ ...base, JWT_REFRESH_TTL: '600' }).jwtRefreshTtl).toBe(600);
    for (const bad of ['0', '-5', 'a month']) {
      expect(() => loadConfig({ ...base, JWT_REFRESH_TTL: bad }), bad).toThrow(ConfigError);
      expect(() => loadConfig({ ...base, JWT_REFRESH_TTL: bad }), bad).toThrow(
        'JWT_REFRESH_TTL must be a positive number of seconds',
      );
    }
  });

  it('is the lifetime of the refresh tokens', async () => {
    const app = await buildBookshop({ database: 'sqlite::memory:', jwtSecret: TEST_JWT_SECRET, jwtRefreshTtl: 1 });
    try {
      await registerAndLogin(app, 'ann@example.com');
      const { refresh_token: token } = (
        await call(app, { method: 'POST', url: '/api/auth', payload: { email: 'ann@example.com', password: PASSWORD } })
      ).body;
      await new Promise((resolve) => setTimeout(resolve, 1100));
      const expired = await call(app, { method: 'POST', url: '/api/auth/refresh', payload: { refresh_token: token } });
      expect(expired.status).toBe(401);
      expect(expired.body.detail).toBe('Invalid refresh token: it has expired; log in again.');
    } finally {
      await app.close();
    }
  });
});

describe('the compiled server and an ADMIN_EMAIL someone registered first', () => {
  let dir: string;
  beforeAll(async () => {
    await ensureBuilt();
  }, 180_000);
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses to start, says why, and logs it at warn', async () => {
    dir = mkdtempSync(join(tmpdir(), 'bookshop-admin-'));
    const DATABASE_URL = `sqlite:${join(dir, 'shop.db')}`;
    const app = await buildBookshop({ database: DATABASE_URL, jwtSecret: TEST_JWT_SECRET });
    try {
      await registerAndLogin(app, 'boss@example.com');
    } finally {
      await app.close();
    }
    const port = await freePort();
    const server = startNode(mainJs, {
      HOST: '127.0.0.1',
      PORT: String(port),
      DATABASE_URL,
      JWT_SECRET: TEST_JWT_SECRET,
      ADMIN_EMAIL: 'boss@example.com',
      ADMIN_PASSWORD: 'taken-over-password',
    });
    const code = await server.exit;
    const output = server.output();
    expect(code, output).toBe(1);
    expect(output).toContain('The bookshop could not start:');
    expect(output).toContain('ADMIN_EMAIL names an account the app did not create: the app refuses to start.');
    expect(output).not.toContain('Bookshop API listening');
    const warning = output
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { level: number; msg: string })
      .find((line) => line.level === 40);
    expect(warning?.msg).toMatch(
      /^The account "boss@example\.com" \(user 1\) was not created by the app and lacks ROLE_SUPER_ADMIN: it is not promoted/,
    );

    // The account is as its owner left it.
    const after = await buildBookshop({ database: DATABASE_URL, jwtSecret: TEST_JWT_SECRET });
    try {
      expect(
        (
          await call(after, {
            method: 'POST',
            url: '/api/auth',
            payload: { email: 'boss@example.com', password: 'taken-over-password' },
          })
        ).status,
      ).toBe(401);
      expect(
        (
          await call(after, {
            method: 'POST',
            url: '/api/auth',
            payload: { email: 'boss@example.com', password: PASSWORD },
          })
        ).status,
      ).toBe(200);
    } finally {
      await after.close();
    }
  }, 120_000);
});
