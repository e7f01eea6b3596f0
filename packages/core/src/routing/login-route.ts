/**
 * `POST /api/auth`: `{"email": "…", "password": "…"}` → `{"token": "<JWT>"}` (HS256; claims `sub`, the identifier,
 * `iat`, `exp`). Missing fields are a 400, wrong credentials a 401 — answered in the same time whether or not the
 * identifier exists (a password is always checked, against a stand-in hash when there is no user).
 */
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../errors.js';
import type { ResolvedSecurity } from '../security/config.js';
import type { TokenService } from '../security/jwt.js';
import { hashPassword, verifyPassword } from '../security/password.js';
import type { Database } from '../state/database.js';

export function registerLoginRoute(app: FastifyInstance, options: { security: ResolvedSecurity; tokens: TokenService; database: Database }): void {
  const { security, tokens, database } = options;
  if (security.loginPath === false) return;
  const field = (name: string) => security.resource.fields.find((f) => f.name === name) as { column: string };
  const identifierColumn = field(security.identifier).column;
  const passwordColumn = field(security.password).column;
  const standIn = hashPassword('resource-api stand-in password');

  app.post(security.loginPath, async (request, reply) => {
    const contentType = request.headers['content-type'];
    if (!contentType || !/^application\/(ld\+)?json\b/i.test(contentType)) {
      throw new ApiError('UNSUPPORTED_MEDIA_TYPE', 'The content-type must be "application/json".');
    }
    const body = request.body as Record<string, unknown> | undefined;
    const credentials: Record<string, string> = {};
    for (const key of [security.identifier, 'password']) {
      const value = body !== null && typeof body === 'object' && !Array.isArray(body) ? body[key] : undefined;
      if (typeof value !== 'string' || value === '') throw new ApiError('MALFORMED_BODY', `The key "${key}" must be provided.`);
      // PostgreSQL refuses U+0000 in a query (a 500); no identifier or password holds it.
      if (value.includes('\u0000')) throw new ApiError('MALFORMED_BODY', `The key "${key}" must not contain the NUL character.`);
      credentials[key] = value;
    }
    const row = await database.knex(security.resource.table).where(identifierColumn, credentials[security.identifier]!).first('id', passwordColumn);
    const stored = typeof row?.[passwordColumn] === 'string' ? (row[passwordColumn] as string) : await standIn;
    const valid = await verifyPassword(credentials.password!, stored);
    if (!row || !valid) throw new ApiError('INVALID_CREDENTIALS', 'Invalid credentials.', { headers: { 'www-authenticate': 'Bearer' } });
    const token = await tokens.sign({ sub: String(row.id), [security.identifier]: credentials[security.identifier] });
    return reply.header('content-type', 'application/json; charset=utf-8').send({ token });
  });
}
