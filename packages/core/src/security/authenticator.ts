/**
 * Who is calling: the bearer token checked, its subject loaded from the user resource on every request (a deleted
 * user's token is refused, a role taken away is gone at once), roles made effective. No token: anonymous. A token that
 * is present but bad is a 401 on every operation, public ones included, so a client learns its token is bad.
 */
import { parseId } from '../serializer/iri.js';
import type { ItemReader } from '../state/item-reader.js';
import { ANONYMOUS, type Caller } from './access.js';
import type { ResolvedSecurity } from './config.js';
import { invalidToken, type TokenService } from './jwt.js';
import { effectiveRoles } from './roles.js';

/** The caller of a request: at once for no token (anonymous), a promise when a token is checked and its user read. */
export type Authenticator = (authorization: string | undefined) => Caller | Promise<Caller>;

export function createAuthenticator(security: ResolvedSecurity, tokens: TokenService, reader: ItemReader): Authenticator {
  const authenticateToken = async (authorization: string): Promise<Caller> => {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (!match) throw invalidToken('the Authorization header must be "Bearer <token>"');
    const payload = await tokens.verify(match[1]!);
    const id = parseId(payload.sub!);
    const user = id === undefined ? null : await reader.readItem(security.resource, id);
    if (!user) throw invalidToken('the user no longer exists');
    return { user, roles: effectiveRoles(user[security.roles] as unknown[], security.roleHierarchy) };
  };
  return (authorization) => (authorization === undefined || authorization === '' ? ANONYMOUS : authenticateToken(authorization));
}
