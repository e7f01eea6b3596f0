/**
 * Rate limiting with @fastify/rate-limit: at most `max` requests per `timeWindow` per client, counted per user (the
 * subject of a valid bearer token) or per IP address, in memory or in Redis (shared by every instance of the app).
 * Over the limit: a 429 `API_ERR_RATE_LIMITED` error with `Retry-After`, rendered like every other error.
 *
 * It covers every route registered after the plugin, the user's own included (`config: { rateLimit: false }` opts a
 * route out); the health routes are never limited. `routes` gives operations (by name), resources (by name), `login`
 * or `graphql` a limit of their own, counted per route, or `false` for none.
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
  preHandlerHookHandler,
  RouteOptions,
} from 'fastify';
import type { Redis } from 'ioredis';
import { ApiError, DeclarationError } from '../errors.js';
import { findClosest } from '../metadata/did-you-mean.js';
import { importOptionalPackage } from '../optional-package.js';
import type { MetadataRegistry } from '../metadata/types.js';
import type { TokenService } from '../security/jwt.js';
import { COUNT_MORE_PROPERTY, countMoreWith } from '../routing/request-cost.js';

/** The request's property that keeps its user's key, once its token is verified (a property: see request-cost.ts). */
const RATE_KEY_PROPERTY = 'resourceApiRateKey';

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

/** The plugin's `rateLimit` (@fastify/rate-limit): the global rule, where counts are kept, who counts, and rules per route. */
export interface RateLimitOptions extends RateLimitRule {
  /** A Redis store shared by the app's instances: an ioredis client (you close it) or a `redis://` URL (closed with the app). */
  readonly redis?: Redis | string;
  /** The prefix of the Redis keys (default `resource-api-rate-limit:`). */
  readonly nameSpace?: string;
  /** Count per user (the JWT subject) when the request carries a valid bearer token, else per IP (default true). */
  readonly perUser?: boolean;
  /** Limits of their own, by operation name (`api_books_post`), resource name (`Book`), `login` or `graphql`; `false` for none. */
  readonly routes?: Readonly<Record<string, RateLimitRule | false>>;
  /** When the store fails (Redis unreachable): let the request through (default true) or fail it with a 500. */
  readonly skipOnError?: boolean;
}

export interface RateLimitTargets {
  readonly registry: MetadataRegistry;
  /** Verifies bearer tokens, when security is on: the key of a request with a valid token is its subject. */
  readonly tokens: TokenService | undefined;
  /** `POST <prefix><loginPath>`, when the login route is on. */
  readonly loginPath: string | undefined;
  /** The body key of the login route that names the account (`email`): its own count per account. */
  readonly loginIdentifier?: string | undefined;
  /** The GraphQL endpoint, when it is on. */
  readonly graphqlPath: string | undefined;
}

/** `METHOD url` of a route → the names an override may use for it, the most specific first. */
function routeNames(targets: RateLimitTargets): Map<string, string[]> {
  const names = new Map<string, string[]>();
  for (const resource of targets.registry.resources) {
    for (const operation of resource.operations) {
      const url = operation.uriTemplate.replace(/\{(\w+)\}/g, ':$1');
      names.set(`${operation.method} ${url}`, [operation.name, resource.name]);
      if (operation.method === 'GET') names.set(`HEAD ${url}`, [operation.name, resource.name]);
    }
  }
  if (targets.loginPath !== undefined) names.set(`POST ${targets.registry.prefix}${targets.loginPath}`, ['login']);
  if (targets.graphqlPath !== undefined)
    for (const method of ['GET', 'HEAD', 'POST']) names.set(`${method} ${targets.graphqlPath}`, ['graphql']);
  return names;
}

/** A boot-time error for an override that names nothing the API has. */
function assertKnownNames(routes: Readonly<Record<string, unknown>>, names: Map<string, string[]>): void {
  const known = new Set([...names.values()].flat());
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
  // Set here too: the GraphQL endpoint's errors do not go through the API's error handler, which sets an error's headers.
  reply.headers(error.headers);
  throw error;
}

/** Adds a hook to a route's own list of hooks of that name. */
function addRouteHook<H>(route: RouteOptions, name: 'onRequest' | 'preHandler', hook: H): void {
  const hooks = route[name] as H | H[] | undefined;
  (route as unknown as Record<string, H[]>)[name] =
    hooks === undefined ? [hook] : Array.isArray(hooks) ? [...hooks, hook] : [hooks, hook];
}

export async function registerRateLimit(
  app: FastifyInstance,
  options: RateLimitOptions,
  targets: RateLimitTargets,
): Promise<void> {
  const names = routeNames(targets);
  const routes = options.routes ?? {};
  assertKnownNames(routes, names);

  const { tokens } = targets;
  const perUser = options.perUser ?? true;
  const addressOf = (request: FastifyRequest): string => `ip:${normalizeIP(request.ip)}`;
  // One key per request, however many times it is counted (a GraphQL document's root fields): one token check. The
  // request properties are decorated, so that every request has them (one shape) before the hooks set them.
  if (!app.hasRequestDecorator(COUNT_MORE_PROPERTY)) app.decorateRequest(COUNT_MORE_PROPERTY, null);
  if (!app.hasRequestDecorator(RATE_KEY_PROPERTY)) app.decorateRequest(RATE_KEY_PROPERTY, null);
  type WithKey = { [RATE_KEY_PROPERTY]: Promise<string> | null };
  const userOf = async (request: FastifyRequest, token: string, verify: TokenService): Promise<string> => {
    try {
      return `user:${(await verify.verify(token)).sub}`;
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
    const token = perUser && tokens ? bearerToken(request) : undefined;
    if (!token || !tokens) return addressOf(request);
    const keyed = request as unknown as WithKey;
    keyed[RATE_KEY_PROPERTY] ??= userOf(request, token, tokens);
    return keyed[RATE_KEY_PROPERTY];
  };

  /** `createRateLimit` exists once the plugin is registered (below); routes come after. Made once per rule. */
  const limiters = new Map<RateLimitRule | undefined, Limiter>();
  const limiterFor = (rule: RateLimitRule | undefined, keyGenerator?: (request: FastifyRequest) => string): Limiter => {
    let limiter = limiters.get(rule);
    if (!limiter || keyGenerator) {
      // No rule: the global one, in the global store (the count every other route adds to).
      const create = (app as unknown as { createRateLimit(options?: object): Limiter }).createRateLimit;
      limiter = create(
        rule === undefined && !keyGenerator ? undefined : { ...rule, ...(keyGenerator ? { keyGenerator } : {}) },
      );
      if (!keyGenerator) limiters.set(rule, limiter);
    }
    return limiter;
  };

  const loginRoute =
    targets.loginPath === undefined ? undefined : `POST ${targets.registry.prefix}${targets.loginPath}`;
  const graphqlRoutes = new Set(
    targets.graphqlPath === undefined
      ? []
      : ['GET', 'HEAD', 'POST'].map((method) => `${method} ${targets.graphqlPath}`),
  );

  // Runs before the plugin's own onRoute hook (registered below): overrides become the route's `config.rateLimit`.
  app.addHook('onRoute', (route) => {
    if (route.config?.rateLimit !== undefined) return;
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      const rule = names
        .get(`${method} ${route.url}`)
        ?.map((name) => routes[name])
        .find((r) => r !== undefined);
      if (`${method} ${route.url}` === loginRoute) return limitLogin(route, rule);
      if (graphqlRoutes.has(`${method} ${route.url}`)) return limitGraphQL(route, rule);
      if (rule === undefined) continue;
      route.config = { ...route.config, rateLimit: rule === false ? false : { ...rule } };
      return;
    }
  });

  /**
   * The login route: counted per address by the plugin's own hook (its key never the bearer token), and per account
   * once the body is read, with the same rule in a count of its own. Without an identifier in the body (a 400) only
   * the address counts.
   */
  const limitLogin = (route: RouteOptions, rule: RateLimitRule | false | undefined): void => {
    if (rule === false) {
      route.config = { ...route.config, rateLimit: false };
      return;
    }
    route.config = { ...route.config, rateLimit: { ...rule, keyGenerator: addressOf } };
    const identifier = targets.loginIdentifier;
    if (identifier === undefined) return;
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
   * The GraphQL endpoint: counted by a hook of its own rather than the plugin's, so that the counts its root fields
   * add later go to the same store (the plugin keeps a route's count in a store of the route's own).
   */
  const limitGraphQL = (route: RouteOptions, rule: RateLimitRule | false | undefined): void => {
    route.config = { ...route.config, rateLimit: false };
    if (rule === false) return;
    let limiter: Limiter | undefined;
    const countRequest: onRequestHookHandler = async (request, reply) => {
      limiter ??= limiterFor(rule);
      const counted = limiter;
      await countWith(counted, request, reply, 1);
      countMoreWith(request, (count) => countWith(counted, request, reply, count));
    };
    addRouteHook(route, 'onRequest', countRequest);
  };

  let redis = options.redis;
  if (typeof redis === 'string') {
    // Short timeouts and no offline queue: a missing Redis must not hold requests up (they pass, with skipOnError).
    // Loaded only when a Redis URL is given: an app that never uses ioredis does not keep it in memory (its cost:
    // docs/performance.md, "What made it faster"). It is an optional peer dependency: the app installs it.
    const { Redis } = await importOptionalPackage(
      'ioredis',
      'A Redis store for the rate limit',
      () => import('ioredis'),
    );
    const client = new Redis(redis, {
      lazyConnect: true,
      connectTimeout: 500,
      maxRetriesPerRequest: 1,
      enableOfflineQueue: false,
    });
    // ioredis reports every failed reconnection; the log gets the first of each outage only.
    let down = false;
    client.on('error', (error: Error) => {
      if (!down)
        app.log.warn({ err: error }, 'rate limit: the Redis store does not answer; requests are not counted meanwhile');
      down = true;
    });
    client.on('ready', () => (down = false));
    // By onClose the server has answered its last request: nothing is waiting on Redis any more.
    app.addHook('onClose', async () => client.disconnect());
    // Connected before the first request is counted; a Redis that is down does not stop the start (ioredis retries).
    await client.connect().catch(() => {});
    redis = client;
  }

  await app.register(fastifyRateLimit, {
    global: true,
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
