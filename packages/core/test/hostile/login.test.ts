/**
 * Hostile logins on `POST /api/auth`: credentials holding NUL, unpaired surrogates, SQL, wrong types, huge values, a
 * body that is no JSON. A 400 or 401 each, never a 500 and never a token — on SQLite and PostgreSQL.
 */
import { describe, expect, inject, it } from 'vitest';
import { testDatabases } from '@resource-api/core/testing';
import { call, useApp } from '../helpers.js';
import { Note, User, securityOptions } from '../security/fixtures.js';

const JSON_TYPE = { 'content-type': 'application/json' } as const;

describe.each(testDatabases(inject('postgresUrl'), inject('mariadbUrl')))('hostile logins on $name', (database) => {
  const app = useApp(database, { resources: [User, Note], security: securityOptions() });
  const login = (payload: string | Buffer) =>
    call(app(), { method: 'POST', url: '/api/auth', headers: JSON_TYPE, payload });

  it('refuses credentials holding the NUL character with 400, before any query', async () => {
    expect(
      (
        await call(app(), {
          method: 'POST',
          url: '/api/users',
          payload: { email: 'ann@example.com', plainPassword: 'secret-password' },
        })
      ).status,
    ).toBe(201);
    for (const [payload, key] of [
      ['{"email":"ann@example.com\\u0000","password":"secret-password"}', 'email'],
      ['{"email":"\\u0000","password":"x"}', 'email'],
      ['{"email":"ann@example.com","password":"secret-password\\u0000"}', 'password'],
    ] as const) {
      const response = await login(payload);
      expect(response.status, payload).toBe(400);
      expect(response.body.detail).toBe(`The key "${key}" must not contain the NUL character.`);
    }
  });

  it('answers 400 or 401, never a 500 or a token, for hostile credentials', async () => {
    expect(
      (
        await call(app(), {
          method: 'POST',
          url: '/api/users',
          payload: { email: 'ann@example.com', plainPassword: 'secret-password' },
        })
      ).status,
    ).toBe(201);
    const payloads = [
      '{"email":"ann@example.com\\ud800","password":"secret-password"}',
      `{"email":"' OR '1'='1","password":"' OR '1'='1"}`,
      '{"email":"%","password":"%"}',
      `{"email":"${'x'.repeat(100_000)}","password":"${'y'.repeat(100_000)}"}`,
      '{"email":["ann@example.com"],"password":"secret-password"}',
      '{"email":{"$ne":null},"password":"secret-password"}',
      '{"email":"ann@example.com","password":{"$gt":""}}',
      '{"__proto__":{"email":"ann@example.com"},"password":"secret-password"}',
      '{"email":"ann@example.com","password":"secret-password"',
      '[]',
      'null',
      Buffer.from([0x7b, 0xff, 0x7d]),
    ];
    for (const payload of payloads) {
      const response = await login(payload);
      expect([400, 401], String(payload).slice(0, 80)).toContain(response.status);
      expect(response.body.token).toBeUndefined();
    }
    expect((await login('{"email":"ann@example.com","password":"secret-password"}')).status).toBe(200);
  });
});
