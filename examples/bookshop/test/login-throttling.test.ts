/**
 * The contract's "Authentication": `POST /api/auth` is throttled per client address and per e-mail address
 * (`RATE_LIMIT_LOGIN_MAX`), whatever token the request carries. The bookshop is built with the rate limits its server
 * takes from the environment (`loadConfig` → `rateLimitOptions`, as `main.ts` does), then probed over HTTP as a guesser
 * would: rotating the tokens of throw-away accounts, spreading guesses over addresses, varying the letter case of the
 * e-mail address. On SQLite and PostgreSQL.
 */
import { describe, expect, it } from 'vitest';
import { loadConfig, rateLimitOptions } from '../src/config.js';
import { ADMIN, bearer, call, create, databases, PASSWORD, TEST_JWT_SECRET, useBookshop } from './support.js';

const ENV = { JWT_SECRET: TEST_JWT_SECRET, RATE_LIMIT_MAX: '1000', RATE_LIMIT_LOGIN_MAX: '3' };

describe.each(databases)('login throttling on $name', (database) => {
  const shop = useBookshop(database, { rateLimit: rateLimitOptions(loadConfig(ENV, { warn: () => {} }).rateLimit) });
  const attempt = (
    email: string,
    remoteAddress: string,
    headers: Record<string, string> = {},
    password = 'a wrong guess',
  ) => call(shop().app, { method: 'POST', url: '/api/auth', payload: { email, password }, headers, remoteAddress });

  it('limits one address to RATE_LIMIT_LOGIN_MAX attempts, whatever token each attempt carries', async () => {
    // Throw-away accounts, each logged in (from addresses of their own) with a valid token.
    const throwaways = [];
    for (let index = 0; index < 4; index++) {
      const email = `throwaway${index}@example.com`;
      const created = await create(shop().app, 'users', { email, plainPassword: PASSWORD });
      const login = await attempt(email, `203.0.113.${index + 1}`, {}, PASSWORD);
      expect(login.status, login.text).toBe(200);
      throwaways.push({ id: created.id as number, auth: bearer(login.body.token as string) });
    }
    const targets = ['target1@example.com', 'target2@example.com', 'target3@example.com', ADMIN.email];
    for (let index = 0; index < 3; index++)
      expect(
        (await attempt(targets[index]!, '198.51.100.20', throwaways[index]!.auth)).status,
        `attempt ${index + 1}`,
      ).toBe(401);
    const limited = await attempt(targets[3]!, '198.51.100.20', throwaways[3]!.auth, ADMIN.password);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(limited.body).toMatchObject({
      '@type': 'hydra:Error',
      status: 429,
      detail: expect.stringMatching(/^Rate limit exceeded: at most 3 requests in the window/),
    });
    // No token was issued for the right password sent over the limit; the tokens still work elsewhere.
    expect(limited.body.token).toBeUndefined();
    expect(
      (
        await call(shop().app, {
          method: 'GET',
          url: `/api/users/${throwaways[0]!.id}`,
          headers: throwaways[0]!.auth,
          remoteAddress: '198.51.100.20',
        })
      ).status,
    ).toBe(200);
  });

  it('limits one e-mail address to RATE_LIMIT_LOGIN_MAX attempts over every address, letter case ignored', async () => {
    for (const [index, email] of ['victim@example.com', 'Victim@Example.COM', 'VICTIM@EXAMPLE.COM'].entries()) {
      expect((await attempt(email, `192.0.2.${index + 1}`)).status, email).toBe(401);
    }
    const limited = await attempt('victim@example.com', '192.0.2.200', bearer(shop().adminToken));
    expect(limited.status).toBe(429);
    // Another account logs in from that address.
    await create(shop().app, 'users', { email: 'someone@example.com', plainPassword: PASSWORD });
    const ok = await attempt('someone@example.com', '192.0.2.200', {}, PASSWORD);
    expect(ok.status, ok.text).toBe(200);
    expect(typeof ok.body.token).toBe('string');
  });
});
