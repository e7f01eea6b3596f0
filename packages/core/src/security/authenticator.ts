/**
 * Who is calling: the bearer token checked, its subject loaded from the user resource on every request (a deleted
 * user's token is refused, a role taken away is gone at once), roles made effective. A token issued before the user's
 * "tokens valid after" instant (set when the user was created, or their password or roles changed: see
 * `state/credentials-stamp.ts`) is refused: it read with the user, no query of its own. No token: anonymous. A token
 * that is present but bad is a 401 on every operation, public ones included, so a client learns its token is bad.
 */
import { parseId } from '../metadata/iri.js';
import type { Entity } from '../metadata/types.js';
import type { ItemReader } from '../state/item-reader.js';
import { ANONYMOUS, type Caller } from './access.js';
import type { ResolvedSecurity } from './config.js';
import { createInvalidTokenError, readIssuedAt, type TokenService } from './jwt.js';
import { resolveEffectiveRoles } from './roles.js';
import { readTokensValidAfter } from '../state/credentials-stamp.js';
import type { JWTPayload } from 'jose';

/**
 * Whether a token (or refresh token) issued at `issuedAt` is still good for `user`: not before the instant their
 * tokens are valid after. A token that says nothing of when it was issued is good only for a user without one. One
 * that says it in whole seconds only (`iat` of a token issued elsewhere) is compared in whole seconds: issued within
 * the second of the change, it is accepted.
 */
export function isIssuedAfterCredentials(
  user: Entity,
  issuedAt: { readonly ms: number; readonly precision: number } | undefined,
): boolean {
  const after = readTokensValidAfter(user);
  if (after === null) return true;
  return issuedAt !== undefined && issuedAt.ms >= after - (after % issuedAt.precision);
}

/** The user a checked token names, read afresh; a 401 when it is gone or the token predates its credentials. */
export async function readUserOfToken(
  security: ResolvedSecurity,
  reader: ItemReader,
  payload: JWTPayload,
): Promise<Entity> {
  const id = parseId(security.resource, payload.sub!);
  const user = id === undefined ? null : await reader.readItem(security.resource, id);
  if (!user) throw createInvalidTokenError('the user no longer exists');
  if (!isIssuedAfterCredentials(user, readIssuedAt(payload)))
    throw createInvalidTokenError(
      'the token was issued before the password or the roles of its user changed; log in again',
    );
  return user;
}

/** The caller of a request: at once for no token (anonymous), a promise when a token is checked and its user read. */
export type Authenticator = (authorization: string | undefined) => Caller | Promise<Caller>;

export function createAuthenticator(
  security: ResolvedSecurity,
  tokens: TokenService,
  reader: ItemReader,
): Authenticator {
  const authenticateToken = async (authorization: string): Promise<Caller> => {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (!match) throw createInvalidTokenError('the Authorization header must be "Bearer <token>"');
    const user = await readUserOfToken(security, reader, await tokens.verify(match[1]!));
    return { user, roles: resolveEffectiveRoles(user[security.roles] as unknown[], security.roleHierarchy) };
  };
  return (authorization) =>
    authorization === undefined || authorization === '' ? ANONYMOUS : authenticateToken(authorization);
}
