/**
 * The framework's table of refresh tokens, made by schema sync and by generated migrations wherever a resource holds
 * credentials (a `password` field): one row per refresh token issued, found by the SHA-256 of the token (the token
 * itself is never stored), grouped by `family` (one login and every token rotated from it). Instants in milliseconds.
 */
import { RESERVED_COLUMN_PREFIX } from '../metadata/reserved-names.js';

export const REFRESH_TOKEN_TABLE = `${RESERVED_COLUMN_PREFIX}refresh_token`;

export const REFRESH_TOKEN_COLUMNS = Object.freeze({
  /** Hex SHA-256 of the token; unique. */
  hash: 'token_hash',
  /** The login the token descends from (random); revoking a login deletes its family. */
  family: 'family',
  /** The user's id. */
  user: 'user_id',
  createdAt: 'created_at',
  expiresAt: 'expires_at',
  /** Set when the token was exchanged for a new pair; using it again is reuse. */
  retiredAt: 'retired_at',
});
