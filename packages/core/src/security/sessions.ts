/**
 * Logins as pairs of tokens: a short-lived access token (a JWT, `security.jwt.ttl`) and a refresh token
 * (`refresh-tokens.ts`, `security.jwt.refreshTtl`) that gives the next pair. The access token names its login in the
 * `sid` claim, so that logging out with it revokes that login's refresh tokens. Also the revocation of every token of
 * a user (`app.resourceApi.revokeTokens`): their "tokens valid after" instant moved to now, their refresh tokens
 * deleted.
 */
import type { JWTPayload } from 'jose';
import { ApiError } from '../errors.js';
import type { Entity, ItemId } from '../metadata/types.js';
import { holdsCredentials, TOKENS_VALID_AFTER_COLUMN } from '../state/credentials-stamp.js';
import type { Database } from '../state/database.js';
import type { ItemReader } from '../state/item-reader.js';
import { isIssuedAfterCredentials, readUserOfToken } from './authenticator.js';
import type { ResolvedSecurity } from './config.js';
import { createInvalidTokenError, type TokenService } from './jwt.js';
import { createInvalidRefreshTokenError, type RefreshTokens } from './refresh-tokens.js';

/** What the login and refresh routes answer. */
export interface TokenPair {
  readonly token: string;
  readonly refresh_token: string;
}

export interface Sessions {
  /** A new login of `user` (checked by the caller): its first pair. */
  open(user: Entity): Promise<TokenPair>;
  /**
   * The next pair of the login `refreshToken` belongs to; a 401 when it is no longer good (reuse revokes the login).
   */
  refresh(refreshToken: string): Promise<TokenPair>;
  /** Logs out the login of the bearer token in `authorization`: its refresh tokens are revoked. */
  close(authorization: string | undefined): Promise<void>;
  /** Revokes every token of the user: access tokens issued until now are refused, refresh tokens deleted. */
  revokeUser(userId: ItemId): Promise<void>;
}

/** The claim that names the login (the refresh token family) an access token was issued for. */
const SESSION_CLAIM = 'sid';

export function createSessions(options: {
  security: ResolvedSecurity;
  tokens: TokenService;
  refreshTokens: RefreshTokens;
  reader: ItemReader;
  database: Database;
}): Sessions {
  const { security, tokens, refreshTokens, reader, database } = options;
  const accessToken = (user: Entity, family: string) =>
    tokens.sign({ sub: String(user.id), [security.identifier]: user[security.identifier], [SESSION_CLAIM]: family });

  return {
    async open(user) {
      const { token: refresh, family } = await refreshTokens.start(user.id!);
      return { token: await accessToken(user, family), refresh_token: refresh };
    },

    async refresh(refreshToken) {
      const rotated = await refreshTokens.rotate(refreshToken);
      const user = await reader.readItem(security.resource, rotated.userId);
      // The user is gone, or their password or roles changed since this login's refresh token was issued: it is over.
      if (!user || !isIssuedAfterCredentials(user, { ms: rotated.issuedAt, precision: 1 })) {
        await refreshTokens.revokeFamily(rotated.family, rotated.userId);
        throw createInvalidRefreshTokenError(
          user
            ? 'the password or the roles of its user changed since it was issued; log in again.'
            : 'its user no longer exists.',
        );
      }
      return { token: await accessToken(user, rotated.family), refresh_token: rotated.token };
    },

    async close(authorization) {
      if (authorization === undefined || authorization === '')
        throw new ApiError(
          'UNAUTHENTICATED',
          'Full authentication is required to log out: send the access token as "Authorization: Bearer <token>".',
          { headers: { 'www-authenticate': 'Bearer' } },
        );
      const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
      if (!match) throw createInvalidTokenError('the Authorization header must be "Bearer <token>"');
      const payload: JWTPayload = await tokens.verify(match[1]!);
      const user = await readUserOfToken(security, reader, payload);
      const family = payload[SESSION_CLAIM];
      // A token issued outside a login (issueToken) has no refresh tokens to revoke.
      if (typeof family === 'string') await refreshTokens.revokeFamily(family, user.id!);
    },

    async revokeUser(userId) {
      if (holdsCredentials(security.resource))
        await database
          .knex(security.resource.table)
          .where('id', userId)
          .update({ [TOKENS_VALID_AFTER_COLUMN]: Date.now() });
      await refreshTokens.revokeUser(userId);
    },
  };
}
