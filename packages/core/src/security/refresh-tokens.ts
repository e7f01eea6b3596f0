/**
 * Refresh tokens: 32 random bytes (base64url) given to the client once, kept as their SHA-256 (a hash of a token with
 * that much entropy cannot be searched back, so no salt or slow hash is needed) in the framework's table
 * (`state/refresh-token-table.ts`). A login starts a family; each refresh retires the token it is given and issues the
 * next one of the family, in one transaction. A retired token given again is reuse (a copy of it was stolen, or two
 * clients raced with it): the whole family is revoked.
 *
 * Rotation is safe under concurrency on both databases: the retiring UPDATE only matches a token not retired yet, so of
 * two refreshes with the same token one retires it (PostgreSQL makes the other wait on the row's lock, then finds it
 * retired; SQLite runs one write transaction at a time), and the other is treated as reuse. The winner's new token is
 * inserted in the same transaction as the retirement, so the loser's revocation of the family always sees (and
 * deletes) it.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import { ApiError } from '../errors.js';
import { readItemId } from '../metadata/identifier.js';
import type { IdentifierMetadata, ItemId } from '../metadata/types.js';
import type { Database } from '../state/database.js';
import type { Transact } from '../state/knex/group-transactions.js';
import { runReturningWrite } from '../state/knex/returning-write.js';
import { REFRESH_TOKEN_COLUMNS as C, REFRESH_TOKEN_TABLE } from '../state/refresh-token-table.js';

/** A refresh token handed out, and the login (family) it belongs to. */
export interface IssuedRefreshToken {
  readonly token: string;
  readonly family: string;
}

/** A refresh token exchanged: the user it names, when it was issued (ms), and its successor. */
export interface RotatedRefreshToken extends IssuedRefreshToken {
  readonly userId: ItemId;
  readonly issuedAt: number;
}

export interface RefreshTokens {
  /** The first token of a new login of `userId`. */
  start(userId: ItemId): Promise<IssuedRefreshToken>;
  /**
   * Retires `token` and issues the next of its family; a 401 for a token unknown, expired, revoked or retired (reuse
   * revokes its family).
   */
  rotate(token: string): Promise<RotatedRefreshToken>;
  /** Revokes a login: every refresh token of the family (of that user only). */
  revokeFamily(family: string, userId: ItemId): Promise<void>;
  /** Revokes every refresh token of a user. */
  revokeUser(userId: ItemId): Promise<void>;
}

export const createInvalidRefreshTokenError = (description: string): ApiError =>
  new ApiError('INVALID_REFRESH_TOKEN', `Invalid refresh token: ${description}`);

const hashOf = (token: string): string => createHash('sha256').update(token).digest('hex');
const newToken = (): string => randomBytes(32).toString('base64url');

/** The longest refresh token accepted in a request (ours are 43 characters): anything longer is not one. */
export const REFRESH_TOKEN_MAX_LENGTH = 256;

export function createRefreshTokens(options: {
  database: Database;
  transaction: Transact;
  ttlSeconds: number;
  /** The user resource's identifier, to read the stored user ids back as its ids. */
  userIdentifier: IdentifierMetadata;
}): RefreshTokens {
  const { database, transaction, ttlSeconds, userIdentifier } = options;
  const table = (db: Knex = database.knex) => db(REFRESH_TOKEN_TABLE);

  const insert = async (db: Knex, userId: ItemId, family: string, now: number): Promise<string> => {
    const token = newToken();
    await table(db).insert({
      [C.hash]: hashOf(token),
      [C.family]: family,
      [C.user]: userId,
      [C.createdAt]: now,
      [C.expiresAt]: now + ttlSeconds * 1000,
      [C.retiredAt]: null,
    });
    return token;
  };

  const revokeFamily = async (family: string): Promise<void> => {
    await table().where(C.family, family).delete();
  };

  return {
    async start(userId) {
      const now = Date.now();
      // Expired tokens are of no use, retired ones no longer tell reuse once expired: a login sweeps them away.
      await table().where(C.expiresAt, '<=', now).delete();
      const family = randomBytes(16).toString('base64url');
      return { token: await insert(database.knex, userId, family, now), family };
    },

    async rotate(token) {
      const hash = hashOf(token);
      const now = Date.now();
      const rotated = await transaction(async (trx) => {
        const [row] = await runReturningWrite(database.dialect, {
          query: table(trx)
            .where(C.hash, hash)
            .whereNull(C.retiredAt)
            .where(C.expiresAt, '>', now)
            .update({
              [C.retiredAt]: now,
            }),
          kind: 'update',
          table: REFRESH_TOKEN_TABLE,
          // The hash is unique: the row this update retired (MariaDB reads it back by it, under the update's lock).
          key: { [C.hash]: hash },
          columns: [C.family, C.user, C.createdAt],
          run: async (query) => query,
          db: trx,
        });
        if (!row) return undefined;
        const family = String(row[C.family]);
        const userId = readItemId(userIdentifier, row[C.user]);
        return { token: await insert(trx, userId, family, now), family, userId, issuedAt: Number(row[C.createdAt]) };
      });
      if (rotated) return rotated;
      const found = (await table().where(C.hash, hash).first(C.family, C.retiredAt)) as
        | Record<string, unknown>
        | undefined;
      if (!found)
        throw createInvalidRefreshTokenError(
          'it is unknown, or was revoked (log out, a password or role change, or its reuse); log in again.',
        );
      if (found[C.retiredAt] !== null) {
        await revokeFamily(String(found[C.family]));
        throw createInvalidRefreshTokenError(
          'it was already used; every refresh token of its login is revoked. Log in again.',
        );
      }
      throw createInvalidRefreshTokenError('it has expired; log in again.');
    },

    async revokeFamily(family, userId) {
      await table().where(C.family, family).where(C.user, userId).delete();
    },

    async revokeUser(userId) {
      await table().where(C.user, userId).delete();
    },
  };
}
