/**
 * JWT checks and issuance with jose: HS256 with a secret, RS256/ES256 with a public key or a JWKS URL. `exp` is
 * required; it and `nbf` are checked with a small clock tolerance, `iss` and `aud` when configured; unsigned
 * (`alg: none`) tokens are always refused. A bad token is a 401 with `WWW-Authenticate: Bearer error="invalid_token"`.
 */
import { createPublicKey, createSecretKey, type KeyObject } from 'node:crypto';
// jose's entry point loads every module of JOSE (JWE, JWK export, key generation...); these three subpaths are what
// is used, a visible part of a start's loading time saved (docs/performance.md).
import { createRemoteJWKSet } from 'jose/jwks/remote';
import { SignJWT } from 'jose/jwt/sign';
import { jwtVerify } from 'jose/jwt/verify';
import type { JWTPayload, JWTVerifyGetKey } from 'jose';
import { ApiError } from '../errors.js';
import type { ResolvedSecurity } from './config.js';

export interface TokenService {
  verify(token: string): Promise<JWTPayload>;
  /** Issues an HS256 token (only with a secret), with `iat` and `iat_ms` (the same instant in milliseconds). */
  sign(claims: { sub: string; [claim: string]: unknown }): Promise<string>;
}

/**
 * The claim of the issue instant in milliseconds: `iat` holds whole seconds, too coarse to tell a token issued just
 * before a password change from one issued just after it.
 */
export const ISSUED_AT_MS_CLAIM = 'iat_ms';

/**
 * When a token was issued: its `iat_ms` (ours), else its `iat` in whole seconds (tokens issued elsewhere), with the
 * precision of the claim; undefined when it says neither.
 */
export function readIssuedAt(payload: JWTPayload): { readonly ms: number; readonly precision: 1 | 1000 } | undefined {
  const precise = payload[ISSUED_AT_MS_CLAIM];
  if (typeof precise === 'number' && Number.isFinite(precise)) return { ms: precise, precision: 1 };
  return typeof payload.iat === 'number' && Number.isFinite(payload.iat)
    ? { ms: payload.iat * 1000, precision: 1000 }
    : undefined;
}

export const createInvalidTokenError = (description: string): ApiError =>
  new ApiError('INVALID_TOKEN', `Invalid JWT Token: ${description}`, {
    headers: {
      'www-authenticate': `Bearer error="invalid_token", error_description="${description.replace(/"/g, "'")}"`,
    },
  });

/**
 * Seconds a client is told to wait when the JWKS cannot be fetched. jose fetches it again for the next token that needs
 * it (requests arriving meanwhile wait for the same fetch, at most its 5-second timeout).
 */
const KEYS_RETRY_AFTER = 30;

/**
 * Errors of a JWKS lookup that are the token's (a key id or algorithm the set does not have): a 401, as any bad token.
 */
const TOKEN_ERRORS = new Set(['ERR_JWKS_NO_MATCHING_KEY', 'ERR_JWKS_MULTIPLE_MATCHING_KEYS', 'ERR_JOSE_NOT_SUPPORTED']);

/**
 * A JWKS key lookup whose failures to fetch the set (the server down or slow, an answer that is no key set) are a 503
 * the client can retry, not a 401: a client told its token is bad throws it away and logs its user out.
 */
function keysOrUnavailable(keys: JWTVerifyGetKey): JWTVerifyGetKey {
  return async (header, token) => {
    try {
      return await keys(header, token);
    } catch (error) {
      if (TOKEN_ERRORS.has((error as { code?: string }).code ?? '')) throw error;
      throw new ApiError(
        'TOKEN_KEYS_UNAVAILABLE',
        `The keys to check the token with cannot be fetched now. Retry in ${KEYS_RETRY_AFTER} seconds.`,
        {
          headers: { 'retry-after': String(KEYS_RETRY_AFTER) },
          cause: error,
        },
      );
    }
  };
}

export function createTokenService(security: ResolvedSecurity): TokenService {
  const { jwt } = security;
  const secret = jwt.secret ? createSecretKey(Buffer.from(jwt.secret)) : undefined;
  const publicKey: KeyObject | undefined =
    jwt.publicKey === undefined
      ? undefined
      : typeof jwt.publicKey === 'string'
        ? createPublicKey(jwt.publicKey)
        : jwt.publicKey;
  const jwks = jwt.jwksUrl ? keysOrUnavailable(createRemoteJWKSet(new URL(jwt.jwksUrl))) : undefined;
  const algorithms = [
    ...(jwt.algorithms ?? [...(secret ? ['HS256'] : []), ...(publicKey || jwks ? ['RS256', 'ES256'] : [])]),
  ].filter((a) => a.toLowerCase() !== 'none');
  const options = {
    algorithms,
    // A token without an expiry would be good forever (LexikJWT refuses those too): `exp` is required.
    requiredClaims: ['exp'],
    clockTolerance: jwt.clockTolerance,
    ...(jwt.issuer ? { issuer: jwt.issuer } : {}),
    ...(jwt.audience ? { audience: jwt.audience } : {}),
  };

  async function verifyWith(token: string): Promise<JWTPayload> {
    const header = JSON.parse(Buffer.from(token.split('.')[0] ?? '', 'base64url').toString('utf8') || '{}') as {
      alg?: string;
    };
    if (header.alg?.startsWith('HS')) {
      if (!secret) throw createInvalidTokenError('unexpected algorithm');
      return (await jwtVerify(token, secret, options)).payload;
    }
    if (publicKey) return (await jwtVerify(token, publicKey, options)).payload;
    if (jwks) return (await jwtVerify(token, jwks, options)).payload;
    throw createInvalidTokenError('unexpected algorithm');
  }

  return {
    async verify(token) {
      let payload: JWTPayload;
      try {
        payload = await verifyWith(token);
      } catch (error) {
        if (error instanceof ApiError) throw error;
        const code = (error as { code?: string }).code ?? '';
        throw createInvalidTokenError(
          code === 'ERR_JWT_EXPIRED'
            ? 'the token has expired'
            : code === 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED'
              ? 'the signature is invalid'
              : 'the token is malformed or not acceptable',
        );
      }
      if (typeof payload.sub !== 'string' || payload.sub === '')
        throw createInvalidTokenError('the token names no subject');
      return payload;
    },
    async sign(claims) {
      if (!secret) throw new Error('Issuing tokens needs security.jwt.secret.');
      const now = Date.now();
      const seconds = Math.floor(now / 1000);
      const token = new SignJWT({ ...claims, [ISSUED_AT_MS_CLAIM]: now })
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setIssuedAt(seconds)
        .setExpirationTime(seconds + jwt.ttl)
        .setSubject(claims.sub);
      if (jwt.issuer) token.setIssuer(jwt.issuer);
      if (jwt.audience) token.setAudience(jwt.audience);
      return token.sign(secret);
    },
  };
}
