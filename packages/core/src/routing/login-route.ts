/**
 * The login routes, under the login path (`/api/auth` by default):
 *
 * - `POST /api/auth`: `{"email": "…", "password": "…"}` → `{"token": "<JWT>", "refresh_token": "…"}` (HS256; claims
 *   `sub`, the identifier as stored, `sid` the login, `iat`, `iat_ms`, `exp`). The identifier matches regardless of
 *   letter case (`Alice@Example.COM` logs in `alice@example.com`). Missing fields are a 400, wrong credentials a 401 —
 *   answered in the same time whether or not the identifier exists (a password is always checked, against a stand-in
 *   hash when there is no user).
 * - `POST /api/auth/refresh`: `{"refresh_token": "…"}` → a new pair; the token given is retired (given again: the
 *   login is revoked). A 401 `API_ERR_SECURITY_INVALID_REFRESH_TOKEN` for one no longer good.
 * - `POST /api/auth/logout` with the access token: the login's refresh tokens are revoked; 204.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from '../errors.js';
import { LOGOUT_SUBPATH, REFRESH_SUBPATH } from '../metadata/naming.js';
import { markRoute } from './api-scope.js';
import type { ResolvedSecurity } from '../security/config.js';
import { findColumn, findAccount } from '../security/find-account.js';
import { hashPassword, verifyPassword } from '../security/password.js';
import { REFRESH_TOKEN_MAX_LENGTH } from '../security/refresh-tokens.js';
import type { Sessions } from '../security/sessions.js';
import type { Database } from '../state/database.js';
import { readItemId } from '../metadata/identifier.js';

function assertJson(request: FastifyRequest): void {
  const contentType = request.headers['content-type'];
  if (!contentType || !/^application\/(ld\+)?json\b/i.test(contentType)) {
    throw new ApiError('UNSUPPORTED_MEDIA_TYPE', 'The content-type must be "application/json".');
  }
}

/** The string values of `keys` in the JSON object body; a 400 naming the first one missing, empty or unusable. */
function stringsOf(body: unknown, keys: readonly string[], maxLength = Infinity): Record<string, string> {
  const values: Record<string, string> = {};
  for (const key of keys) {
    const value =
      body !== null && typeof body === 'object' && !Array.isArray(body)
        ? (body as Record<string, unknown>)[key]
        : undefined;
    if (typeof value !== 'string' || value === '')
      throw new ApiError('MALFORMED_BODY', `The key "${key}" must be provided.`);
    // PostgreSQL refuses U+0000 in a query (a 500); no identifier, password or token holds it.
    if (value.includes('\u0000'))
      throw new ApiError('MALFORMED_BODY', `The key "${key}" must not contain the NUL character.`);
    if (value.length > maxLength)
      throw new ApiError(
        'MALFORMED_BODY',
        `The key "${key}" is longer than any such value (${maxLength} characters at most).`,
      );
    values[key] = value;
  }
  return values;
}

export function registerLoginRoute(
  app: FastifyInstance,
  options: { security: ResolvedSecurity; sessions: Sessions; database: Database },
): void {
  const { security, sessions, database } = options;
  if (security.loginPath === false) return;
  const identifierColumn = findColumn(security, security.identifier);
  const passwordColumn = findColumn(security, security.password);
  const standIn = hashPassword('resource-api stand-in password');
  const json = (reply: import('fastify').FastifyReply, body: unknown) =>
    reply.header('content-type', 'application/json; charset=utf-8').header('cache-control', 'no-store').send(body);

  app.post(
    security.loginPath,
    { config: markRoute({ kind: 'login', identifier: security.identifier }) },
    async (request, reply) => {
      assertJson(request);
      const credentials = stringsOf(request.body, [security.identifier, 'password']);
      const row = await findAccount(database, security, credentials[security.identifier]!, [passwordColumn]);
      const stored = typeof row?.[passwordColumn] === 'string' ? (row[passwordColumn] as string) : await standIn;
      const valid = await verifyPassword(credentials.password!, stored);
      if (!row || !valid)
        throw new ApiError('INVALID_CREDENTIALS', 'Invalid credentials.', {
          headers: { 'www-authenticate': 'Bearer' },
        });
      return json(
        reply,
        await sessions.open({
          id: readItemId(security.resource.identifier, row.id),
          [security.identifier]: row[identifierColumn],
        }),
      );
    },
  );

  app.post(`${security.loginPath}${REFRESH_SUBPATH}`, async (request, reply) => {
    assertJson(request);
    const { refresh_token: token } = stringsOf(request.body, ['refresh_token'], REFRESH_TOKEN_MAX_LENGTH);
    return json(reply, await sessions.refresh(token!));
  });

  app.post(`${security.loginPath}${LOGOUT_SUBPATH}`, async (request, reply) => {
    await sessions.close(request.headers.authorization);
    return reply.code(204).send();
  });
}
