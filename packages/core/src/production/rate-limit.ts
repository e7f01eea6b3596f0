/**
 * Rate limiting with @fastify/rate-limit: at most `max` requests per `timeWindow` per client, counted per user (the
 * subject of a valid bearer token) or per IP address, in memory or in Redis (shared by every instance of the app).
 * Over the limit: a 429 `API_ERR_RATE_LIMITED` error with `Retry-After`, rendered like every other error.
 *
 * It covers the routes the production plugin serves: the API's, or every route with `routes: 'all'` (a route's own
 * `config: { rateLimit }` is left to @fastify/rate-limit, `false` opts it out); the health routes are never limited.
 * `routes` gives operations (by name), resources (by name), `login` or `graphql` a limit of their own, counted per
 * route, or `false` for none. Which route is which, the routes say themselves (`config.resourceApi`,
 * `routing/api-scope.ts`): the plugin is registered before the API, and knows nothing of its metadata.
 *
 * Two routes count differently. The login route is counted per client address and, separately, per target account
 * (the identifier in the body, letter case ignored), never per bearer token: otherwise the tokens of throw-away
 * accounts would each buy a fresh count of password guesses. Both limits apply, so guesses spread over many addresses
 * stop at the account's, and one address trying many accounts stops at its own. The GraphQL endpoint counts each root
 * field of the document it runs (`{ a: books … b: books … }` counts 2): the request counts once on arrival, as every
 * other, and the rest once the document is parsed (`routing/request-cost.ts`). @fastify/rate-limit counts one per
 * call and has no per-request cost, so both extra counts go through its `createRateLimit` limiter, against the same
 * store and key as the route's own count.
 */
import fastifyRateLimit, { normalizeIP } from '@fastify/rate-limit';
import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  onRequestHookHandler,
  onRouteHookHandler,
  preHandlerHookHandler,
  RouteOptions,
} from 'fastify';
import type { Redis } from 'ioredis';
import { ApiError, DeclarationError } from '../errors.js';
import { findClosest } from '../metadata/did-you-mean.js';
import { openRedisConnection } from '../redis-connection.js';
import { addRouteHook } from '../route-hooks.js';
import type { ApiRouteMark } from '../routing/api-scope.js';
import type { JWTPayload } from 'jose';
import { COUNT_MORE_PROPERTY, countMoreWith } from '../routing/request-cost.js';
import { BoundedMemo } from '../bounded-memo.js';

/** The request's property that keeps its user's key, once its token is verified (a property: see request-cost.ts). */
const RATE_KEY_PROPERTY = 'resourceApiRateKey';

/** The most client addresses whose rate-limit key is kept ready (about a megabyte at most). */
const ADDRESS_KEYS_KEPT = 10_000;

/** A limit: how many requests a client may send in a window. */
export interface RateLimitRule {
  /** Requests allowed per window and client (default 100); a function may give users and addresses different limits. */
  readonly max?:
    | number
    | ((request: FastifyRequest, key: string) => number)
    | ((request: FastifyRequest, key: string) => Promise<number>);
  /** The window: milliseconds, or a duration such as `'1 minute'` (default one minute). */
  readonly timeWindow?: number | string;
}

/**
 * The plugin's `rateLimit` (@fastify/rate-limit): the global rule, where counts are kept, who counts, and rules per
 * route.
 */
export interface RateLimitOptions extends RateLimitRule {
  /**
   * A Redis store shared by the app's instances: an ioredis client (you close it) or a `redis://` URL (closed with the
   * app).
   */
  readonly redis?: Redis | string;
  /** The prefix of the Redis keys (default `resource-api-rate-limit:`). */
  readonly nameSpace?: string;
  /** Count per user (the JWT subject) when the request carries a valid bearer token, else per IP (default true). */
  readonly perUser?: boolean;
  /**
   * Limits of their own, by operation name (`api_books_post`), resource name (`Book`), `login` or `graphql`; `false`
   * for none.
   */
  readonly routes?: Readonly<Record<string, RateLimitRule | false>>;
  /** When the store fails (Redis unreachable): let the request through (default true) or fail it with a 500. */
  readonly skipOnError?: boolean;
}

/** What the rate limit needs of the API, asked when a request or a route needs it (the API comes after the plugin). */
export interface RateLimitLink {
  /** Verifies bearer tokens, when the API has security on: the key of a request with a valid token is its subject. */
  readonly verifyToken: () => ((token: string) => Promise<JWTPayload>) | undefined;
}

/** The names an override may use for a route, the most specific first. */
function routeNames(mark: ApiRouteMark | undefined): readonly string[] {
  switch (mark?.kind) {
    case 'operation':
      return [mark.operation, mark.resource];
    case 'login':
      return ['login'];
    case 'graphql':
      return ['graphql'];
    default:
      return [];
  }
}

/** A start-up error (once the routes are known) for an override that names nothing the API has. */
function assertKnownNames(routes: Readonly<Record<string, unknown>>, known: ReadonlySet<string>): void {
  for (const name of Object.keys(routes)) {
    if (known.has(name)) continue;
    const guess = findClosest(name, known);
    throw new DeclarationError(
      `rateLimit.routes: "${name}" is no operation, resource, "login" or "graphql" of this API.${guess ? ` Did you mean "${guess}"?` : ''}`,
    );
  }
}

const bearerToken = (request: FastifyRequest): string | undefined =>
  /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '')?.[1];

/** The 429 of a client over its limit, as every route answers it (`Retry-After` included). */
function tooManyRequests(max: number, ttl: number): ApiError {
  const seconds = Math.max(1, Math.ceil(ttl / 1000));
  const error = new ApiError(
    'TOO_MANY_REQUESTS',
    `Rate limit exceeded: at most ${max} requests in the window. Retry in ${seconds} second${seconds === 1 ? '' : 's'}.`,
    {
      headers: { 'retry-after': String(seconds) },
    },
  );
  // Routes outside the API's error handler (GraphQL, the user's own) read the status from `statusCode`.
  return Object.assign(error, { statusCode: error.status });
}

/** What @fastify/rate-limit's `createRateLimit` limiter answers for one count. */
interface LimiterResult {
  readonly isAllowed: boolean;
  readonly max?: number;
  readonly remaining?: number;
  readonly ttl?: number;
  readonly ttlInSeconds?: number;
  readonly isExceeded?: boolean;
}
type Limiter = (request: FastifyRequest) => Promise<LimiterResult>;

/**
 * Counts a request `count` times with a limiter, and answers as @fastify/rate-limit's own hook does: the rate-limit
 * headers, and the 429 (with `Retry-After`) when the count is over the limit.
 */
async function countWith(limiter: Limiter, request: FastifyRequest, reply: FastifyReply, count: number): Promise<void> {
  const results = await Promise.all(Array.from({ length: count }, () => limiter(request)));
  // The last count is the one with the least left (they ran concurrently: the order they finished in says nothing).
  const last = results.reduce((least, result) =>
    (result.remaining ?? Infinity) < (least.remaining ?? Infinity) ? result : least,
  );
  if (last.isAllowed || last.max === undefined) return;
  reply.header('x-ratelimit-limit', last.max);
  reply.header('x-ratelimit-remaining', last.remaining ?? 0);
  reply.header('x-ratelimit-reset', last.ttlInSeconds ?? 0);
  if (!results.some((result) => result.isExceeded)) return;
  const error = tooManyRequests(last.max, last.ttl ?? 0);
  // Set here too: the GraphQL endpoint's errors do not go through the API's error handler, which sets an error's
  // headers.
  reply.headers(error.headers);
  throw error;
}

/**
 * Registers @fastify/rate-limit (its own hook on no route: `global: false`) and returns the `onRoute` hook that limits
 * a route: the production plugin adds it where it serves routes (the API's scopes, or the whole app).
 */
export async function registerRateLimit(
  app: FastifyInstance,
  options: RateLimitOptions,
  link: RateLimitLink,
): Promise<onRouteHookHandler> {
  const routes = options.routes ?? {};
  // Checked once every route is defined: only then are the API's names known.
  const known = new Set<string>();
  app.addHook('onReady', (done) => {
    try {
      assertKnownNames(routes, known);
      done();
    } catch (error) {
      done(error as Error);
    }
  });

  const perUser = options.perUser ?? true;
  // An address's key, kept: @fastify/rate-limit's normalizeIP parses an IPv6 address (an IPv4 client of a server
  // listening on `::` has one too, `::ffff:…`) in several microseconds, and tests every address against Node's IPv6
  // expression; a client sends many requests. Bounded: only what can be an address (at most 45 characters; with
  // `trustProxy`, `request.ip` is whatever X-Forwarded-For says), emptied when full.
  const keys = new BoundedMemo<string, string>(ADDRESS_KEYS_KEPT);
  const addressOf = (request: FastifyRequest): string => {
    const ip = request.ip;
    if (ip.length > 45) return `ip:${normalizeIP(ip)}`;
    return keys.get(ip) ?? keys.keep(ip, `ip:${normalizeIP(ip)}`);
  };
  // One key per request, however many times it is counted (a GraphQL document's root fields): one token check. The
  // request properties are decorated, so that every request has them (one shape) before the hooks set them.
  if (!app.hasRequestDecorator(COUNT_MORE_PROPERTY)) app.decorateRequest(COUNT_MORE_PROPERTY, null);
  if (!app.hasRequestDecorator(RATE_KEY_PROPERTY)) app.decorateRequest(RATE_KEY_PROPERTY, null);
  type WithKey = { [RATE_KEY_PROPERTY]: Promise<string> | null };
  const userOf = async (
    request: FastifyRequest,
    token: string,
    verify: (token: string) => Promise<JWTPayload>,
  ): Promise<string> => {
    try {
      return `user:${(await verify(token)).sub}`;
    } catch {
      // An invalid token counts against the address; the operation itself answers 401 for it.
      return addressOf(request);
    }
  };
  /**
   * The request's key: its address, at once, without a token to verify (most requests: no promise, no bookkeeping);
   * else its user's, verified once per request however many times the request is counted.
   */
  const keyOf = (request: FastifyRequest): string | Promise<string> => {
    const verify = perUser ? link.verifyToken() : undefined;
    const token = verify ? bearerToken(request) : undefined;
    if (!token || !verify) return addressOf(request);
    const keyed = request as unknown as WithKey;
    keyed[RATE_KEY_PROPERTY] ??= userOf(request, token, verify);
    return keyed[RATE_KEY_PROPERTY];
  };

  type Limits = {
    createRateLimit(options?: object): Limiter;
    rateLimit(options?: object): onRequestHookHandler;
  };
  // Both exist once @fastify/rate-limit is registered (below); routes come after.
  const limits = app as unknown as Limits;
  /** Made once per rule: without one, the global rule in the global store (the count every other route adds to). */
  const limiters = new Map<RateLimitRule | undefined, Limiter>();
  const limiterFor = (rule: RateLimitRule | undefined, keyGenerator?: (request: FastifyRequest) => string): Limiter => {
    let limiter = limiters.get(rule);
    if (!limiter || keyGenerator) {
      limiter = limits.createRateLimit(
        rule === undefined && !keyGenerator ? undefined : { ...rule, ...(keyGenerator ? { keyGenerator } : {}) },
      );
      if (!keyGenerator) limiters.set(rule, limiter);
    }
    return limiter;
  };
  /**
   * The count of one route of its own (a rule of its own): its keys carry the route, so a shared Redis keeps them
   * apart.
   */
  let globalHandler: onRequestHookHandler | undefined;
  const countOwn = (
    route: RouteOptions,
    rule: RateLimitRule | undefined,
    key: (request: FastifyRequest) => string | Promise<string>,
  ): onRequestHookHandler => {
    const own = `${String(route.method)} ${route.url}|`;
    return limits.rateLimit({ ...rule, keyGenerator: async (request: FastifyRequest) => own + (await key(request)) });
  };

  /**
   * The login route: counted per address (its key never the bearer token), and per account once the body is read,
   * with the same rule in a count of its own. Without an identifier in the body (a 400) only the address counts.
   */
  const limitLogin = (route: RouteOptions, rule: RateLimitRule | undefined, identifier: string): void => {
    addRouteHook(route, 'onRequest', countOwn(route, rule, addressOf));
    const accountOf = (request: FastifyRequest): string => `account:${accountName(request.body, identifier)}`;
    let byAccount: Limiter | undefined;
    const countAccount: preHandlerHookHandler = async (request, reply) => {
      if (accountName(request.body, identifier) === undefined) return;
      byAccount ??= limiterFor(rule, accountOf);
      await countWith(byAccount, request, reply, 1);
    };
    addRouteHook(route, 'preHandler', countAccount);
  };

  /**
   * The GraphQL endpoint: counted by a hook of its own, so that the counts its root fields add once the document is
   * parsed go to the same store as the request's own count.
   */
  const limitGraphQL = (route: RouteOptions, rule: RateLimitRule | undefined): void => {
    let limiter: Limiter | undefined;
    const countRequest: onRequestHookHandler = async (request, reply) => {
      limiter ??= limiterFor(rule);
      const counted = limiter;
      await countWith(counted, request, reply, 1);
      countMoreWith(request, (count) => countWith(counted, request, reply, count));
    };
    addRouteHook(route, 'onRequest', countRequest);
  };

  await registerRateLimitPlugin(app, options, keyOf);
  return (route) => {
    // A route that says how it is limited (`config.rateLimit`, the health routes' `false`) is left to it.
    if (route.config?.rateLimit !== undefined) return;
    const mark = route.config?.resourceApi;
    const names = routeNames(mark);
    for (const name of names) known.add(name);
    const rule = names.map((name) => routes[name]).find((r) => r !== undefined);
    if (rule === false) return;
    if (mark?.kind === 'login') return limitLogin(route, rule, mark.identifier);
    if (mark?.kind === 'graphql') return limitGraphQL(route, rule);
    if (rule !== undefined) return addRouteHook(route, 'onRequest', countOwn(route, rule, keyOf));
    globalHandler ??= limits.rateLimit();
    addRouteHook(route, 'onRequest', globalHandler);
  };
}

/**
 * Connects the rate limit's store (Redis when asked for) and registers @fastify/rate-limit, for no route of its own.
 */
async function registerRateLimitPlugin(
  app: FastifyInstance,
  options: RateLimitOptions,
  keyOf: (request: FastifyRequest) => string | Promise<string>,
): Promise<void> {
  let redis = options.redis;
  if (typeof redis === 'string') {
    // Short timeouts and no offline queue: a missing Redis must not hold requests up (they pass, with skipOnError).
    const client = await openRedisConnection(redis, {
      usedFor: 'A Redis store for the rate limit',
      options: { connectTimeout: 500, maxRetriesPerRequest: 1, enableOfflineQueue: false },
      reportOutage: (error) =>
        app.log.warn({ err: error }, 'rate limit: the Redis store does not answer; requests are not counted meanwhile'),
    });
    // By onClose the server has answered its last request: nothing is waiting on Redis any more.
    app.addHook('onClose', async () => client.disconnect());
    redis = client;
  }

  await app.register(fastifyRateLimit, {
    global: false,
    max: options.max ?? 100,
    timeWindow: options.timeWindow ?? 60_000,
    keyGenerator: keyOf,
    skipOnError: options.skipOnError ?? true,
    ...(redis ? { redis, nameSpace: options.nameSpace ?? 'resource-api-rate-limit:' } : {}),
    errorResponseBuilder: (_request, context) => {
      const { max, ttl } = context as unknown as { max: number; ttl: number };
      return tooManyRequests(max, ttl);
    },
  });
}

/**
 * The account a login attempt targets: the identifier in its body, trimmed and in lower case (`Alice@Example.COM` is
 * `alice@example.com`, as the login matches it), or undefined when the body has none.
 */
function accountName(body: unknown, identifier: string): string | undefined {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const value = (body as Record<string, unknown>)[identifier];
  if (typeof value !== 'string') return undefined;
  const name = value.trim().toLowerCase();
  return name === '' ? undefined : name;
}
