/**
 * Tokens issued elsewhere (a public key or a JWKS URL): a JWKS server that is down or answers no key set is a 503 the
 * client can retry (a 401 would make it throw its token away), while a token the set has no key for stays a 401; there
 * is no login route without a secret to sign tokens with; settings that would refuse every token fail at start-up.
 * On SQLite and PostgreSQL.
 */
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import { exportJWK, SignJWT } from 'jose';
import { describe, expect, inject, it } from 'vitest';
import { buildTestApp, testDatabases } from '@resource-api/core/testing';
import { call } from '../helpers.js';
import { Note, Public, Report, securityOptions, User } from './fixtures.js';

const resources = [User, Note, Report, Public];
const as = (token: string) => ({ authorization: `Bearer ${token}` });
const tokenOf = (privateKey: KeyObject, kid = 'k1') =>
  new SignJWT({})
    .setProtectedHeader({ alg: 'RS256', kid })
    .setSubject('1')
    .setIssuedAt()
    .setExpirationTime('5m')
    .sign(privateKey);

/** A JWKS server whose answer the test changes: the key set, or a failure. */
async function jwksServer(jwk: object) {
  let answer: 'keys' | 'error' | 'not a key set' = 'keys';
  const server = Fastify();
  server.get('/jwks.json', async (_request, reply) =>
    answer === 'keys' ? { keys: [jwk] } : answer === 'error' ? reply.code(500).send('down') : { hello: 'world' },
  );
  await server.listen({ host: '127.0.0.1', port: 0 });
  const { port } = server.server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/jwks.json`, server, answer: (next: typeof answer) => (answer = next) };
}

async function register(app: FastifyInstance) {
  const response = await call(app, {
    method: 'POST',
    url: '/api/users',
    payload: { email: 'ann@example.com', plainPassword: 'password-123' },
  });
  expect(response.status, response.text).toBe(201);
}

describe.each(testDatabases(inject('postgresUrl'), inject('mariadbUrl')))(
  'tokens issued elsewhere on $name',
  (database) => {
    it('answers 503 with Retry-After while the JWKS cannot be fetched, 401 for a key the set lacks', async () => {
      const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
      const jwks = await jwksServer({ ...(await exportJWK(publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' });
      const app = await buildTestApp({
        database,
        resources,
        security: securityOptions({ jwt: { jwksUrl: jwks.url } }),
      });
      try {
        await register(app);
        const token = await tokenOf(privateKey);
        const notes = () => call(app, { method: 'GET', url: '/api/notes', headers: as(token) });

        jwks.answer('error');
        const down = await notes();
        expect(down.status).toBe(503);
        expect(down.headers['retry-after']).toBe('30');
        expect(down.body).toMatchObject({
          '@type': 'hydra:Error',
          status: 503,
          detail: 'The keys to check the token with cannot be fetched now. Retry in 30 seconds.',
        });
        // GraphQL authenticates with the same code: the same status, in the error's extensions, and the same header.
        const graphql = await call(app, {
          method: 'POST',
          url: '/graphql',
          headers: as(token),
          payload: { query: '{ notes { totalCount } }' },
        });
        expect(graphql.body.errors[0].extensions.status).toBe(503);
        expect(graphql.headers['retry-after']).toBe('30');
        jwks.answer('not a key set');
        expect((await notes()).status).toBe(503);

        jwks.answer('keys');
        expect((await notes()).status).toBe(200);
        // A key id the set does not hold is the token's fault.
        const unknown = await call(app, {
          method: 'GET',
          url: '/api/notes',
          headers: as(await tokenOf(privateKey, 'k9')),
        });
        expect(unknown.status).toBe(401);
        expect(unknown.headers['www-authenticate']).toMatch(/^Bearer error="invalid_token"/);
      } finally {
        await app.close();
        await jwks.server.close();
      }
    });

    it('answers 503 when the JWKS server is gone', async () => {
      const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
      const jwks = await jwksServer({ ...(await exportJWK(publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' });
      await jwks.server.close();
      const app = await buildTestApp({
        database,
        resources,
        security: securityOptions({ jwt: { jwksUrl: jwks.url } }),
      });
      try {
        await register(app);
        const response = await call(app, { method: 'GET', url: '/api/notes', headers: as(await tokenOf(privateKey)) });
        expect(response.status).toBe(503);
        // Anonymous requests need no key: a public operation still answers.
        expect((await call(app, { method: 'GET', url: '/api/pages' })).status).toBe(200);
      } finally {
        await app.close();
      }
    });

    it('has no login route without a secret to sign tokens with', async () => {
      const publicKey = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({
        type: 'spki',
        format: 'pem',
      }) as string;
      const app = await buildTestApp({ database, resources, security: securityOptions({ jwt: { publicKey } }) });
      try {
        await register(app);
        const login = await call(app, {
          method: 'POST',
          url: '/api/auth',
          payload: { email: 'ann@example.com', password: 'password-123' },
        });
        expect(login.status).toBe(404);
        const openapi = await call(app, { method: 'GET', url: '/api/docs.json' });
        expect(Object.keys(openapi.body.paths)).not.toContain('/auth');
        expect(Object.keys(openapi.body.paths)).toContain('/notes');
      } finally {
        await app.close();
      }
      await expect(
        buildTestApp({ database, resources, security: securityOptions({ jwt: { publicKey }, loginPath: '/auth' }) }),
      ).rejects.toThrow(/^security\.loginPath needs security\.jwt\.secret/);
    });

    it('refuses settings that would refuse every token, or ignore a key source, at start-up', async () => {
      const publicKey = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({
        type: 'spki',
        format: 'pem',
      }) as string;
      const refused: [object, RegExp][] = [
        [{ publicKey, jwksUrl: 'http://127.0.0.1:9/jwks.json' }, /takes a "publicKey" or a "jwksUrl", not both/],
        [{ publicKey, clockTolerance: -1 }, /clockTolerance must be a number of seconds from 0 up/],
        [{ publicKey, clockTolerance: Number.NaN }, /clockTolerance must be a number of seconds from 0 up/],
        [
          { secret: 'a-test-secret-that-is-long-enough-0123456789', ttl: 0 },
          /ttl must be a whole number of seconds from 1 up/,
        ],
      ];
      for (const [jwt, message] of refused) {
        await expect(
          buildTestApp({ database, resources, security: securityOptions({ jwt }) }),
          JSON.stringify(jwt),
        ).rejects.toThrow(message);
      }
    });
  },
);
