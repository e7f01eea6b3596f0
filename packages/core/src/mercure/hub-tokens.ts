/**
 * The JWTs of the Mercure protocol, signed with a shared secret (HMAC): the built-in hub verifies subscribers' and
 * publishers' tokens and reads their `mercure.subscribe` and `mercure.publish` claims (lists of topic selectors); the
 * framework signs its own publisher token when it sends updates to an external hub.
 */
import { SignJWT } from 'jose/jwt/sign';
import { jwtVerify } from 'jose/jwt/verify';
import { compileTopicSelector, type TopicMatcher } from './topic-selector.js';

const ALGORITHMS = ['HS256', 'HS384', 'HS512'];

/** The name of the cookie browsers send their subscriber token in (`EventSource` cannot set headers). */
export const HUB_COOKIE = 'mercureAuthorization';

/** What a verified token allows: null for a claim it does not have. */
export interface HubGrants {
  readonly publish: readonly TopicMatcher[] | null;
  readonly subscribe: readonly TopicMatcher[] | null;
}

/** The secret as jose takes it. */
export const toHubKey = (secret: string): Uint8Array => new TextEncoder().encode(secret);

/** A claim's topic selectors, or null when the token has none (or not a list of strings). */
function selectorsOf(claim: unknown): TopicMatcher[] | null {
  if (!Array.isArray(claim) || claim.some((selector) => typeof selector !== 'string')) return null;
  return claim.map((selector: string) => compileTopicSelector(selector));
}

/** The token's grants; throws when its signature, algorithm or expiry is wrong. */
export async function verifyHubToken(token: string, key: Uint8Array): Promise<HubGrants> {
  const { payload } = await jwtVerify(token, key, { algorithms: ALGORITHMS });
  const mercure = payload.mercure as { publish?: unknown; subscribe?: unknown } | undefined;
  return {
    publish: selectorsOf(mercure?.publish),
    subscribe: selectorsOf(mercure?.subscribe),
  };
}

/**
 * The token of a request: the `Authorization: Bearer` header, else the `mercureAuthorization` cookie; undefined when
 * neither is there. A header that is not a bearer token is an empty token (refused as invalid, never ignored).
 */
export function readHubToken(headers: Readonly<Record<string, string | string[] | undefined>>): string | undefined {
  const authorization = headers.authorization;
  if (typeof authorization === 'string') return /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1] ?? '';
  const cookie = headers.cookie;
  if (typeof cookie !== 'string') return undefined;
  for (const pair of cookie.split(';')) {
    const separator = pair.indexOf('=');
    if (separator !== -1 && pair.slice(0, separator).trim() === HUB_COOKIE) return pair.slice(separator + 1).trim();
  }
  return undefined;
}

/**
 * A Mercure JWT (HS256) allowing `claims` — the topic selectors a subscriber may receive private updates of
 * (`subscribe`), or a publisher publish to (`publish`) — valid `seconds` (default an hour), signed with the hub's
 * secret. Give it to a subscriber in the `mercureAuthorization` cookie or an `Authorization: Bearer` header.
 *
 * @example
 * const token = await signHubToken({ subscribe: ['https://example.com/api/books/{id}'] }, process.env.MERCURE_JWT_SECRET!);
 */
export function signHubToken(
  claims: { readonly publish?: readonly string[]; readonly subscribe?: readonly string[] },
  secret: string | Uint8Array,
  seconds = 3600,
): Promise<string> {
  const key = typeof secret === 'string' ? toHubKey(secret) : secret;
  return new SignJWT({ mercure: claims })
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuedAt()
    .setExpirationTime(`${seconds}s`)
    .sign(key);
}
