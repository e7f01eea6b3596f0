/**
 * Rate limiting with @fastify/rate-limit: at most `max` requests per `timeWindow` per client, counted per user (the
 * subject of a valid bearer token) or per IP address, in memory or in Redis (shared by every instance of the app).
 * Over the limit: a 429 `API_ERR_RATE_LIMITED` error with `Retry-After`, rendered like every other error.
 *
 * It covers every route registered after the plugin, the user's own included (`config: { rateLimit: false }` opts a
 * route out); the health routes are never limited. `routes` gives operations (by name), resources (by name), `login`
 * or `graphql` a limit of their own, counted per route, or `false` for none.
 */
import fastifyRateLimit, { normalizeIP } from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import { ApiError, DeclarationError } from '../errors.js';
import { closest } from '../metadata/did-you-mean.js';
import type { MetadataRegistry } from '../metadata/types.js';
import type { TokenService } from '../security/jwt.js';

/** A limit: how many requests a client may send in a window. */
export interface RateLimitRule {
  /** Requests allowed per window and client (default 100); a function may give users and addresses different limits. */
  readonly max?: number | ((request: FastifyRequest, key: string) => number) | ((request: FastifyRequest, key: string) => Promise<number>);
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
  if (targets.graphqlPath !== undefined) for (const method of ['GET', 'HEAD', 'POST']) names.set(`${method} ${targets.graphqlPath}`, ['graphql']);
  return names;
}

/** A boot-time error for an override that names nothing the API has. */
function assertKnownNames(routes: Readonly<Record<string, unknown>>, names: Map<string, string[]>): void {
  const known = new Set([...names.values()].flat());
  for (const name of Object.keys(routes)) {
    if (known.has(name)) continue;
    const guess = closest(name, known);
    throw new DeclarationError(`rateLimit.routes: "${name}" is no operation, resource, "login" or "graphql" of this API.${guess ? ` Did you mean "${guess}"?` : ''}`);
  }
}

const bearerToken = (request: FastifyRequest): string | undefined => /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '')?.[1];

export async function registerRateLimit(app: FastifyInstance, options: RateLimitOptions, targets: RateLimitTargets): Promise<void> {
  const names = routeNames(targets);
  const routes = options.routes ?? {};
  assertKnownNames(routes, names);

  // Runs before the plugin's own onRoute hook (registered below): overrides become the route's `config.rateLimit`.
  app.addHook('onRoute', (route) => {
    if (route.config?.rateLimit !== undefined) return;
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      const rule = names.get(`${method} ${route.url}`)?.map((name) => routes[name]).find((r) => r !== undefined);
      if (rule === undefined) continue;
      route.config = { ...route.config, rateLimit: rule === false ? false : { ...rule } };
      return;
    }
  });

  const { tokens } = targets;
  const perUser = options.perUser ?? true;
  const keyOf = async (request: FastifyRequest): Promise<string> => {
    const token = perUser && tokens ? bearerToken(request) : undefined;
    if (token && tokens) {
      try {
        return `user:${(await tokens.verify(token)).sub}`;
      } catch {
        // An invalid token counts against the address; the operation itself answers 401 for it.
      }
    }
    return `ip:${normalizeIP(request.ip)}`;
  };

  let redis = options.redis;
  if (typeof redis === 'string') {
    // Short timeouts and no offline queue: a missing Redis must not hold requests up (they pass, with skipOnError).
    // Loaded only when a Redis URL is given: ioredis costs about 25 MB of memory to an app that never uses it.
    const { Redis } = await import('ioredis');
    const client = new Redis(redis, { lazyConnect: true, connectTimeout: 500, maxRetriesPerRequest: 1, enableOfflineQueue: false });
    // ioredis reports every failed reconnection; the log gets the first of each outage only.
    let down = false;
    client.on('error', (error: Error) => {
      if (!down) app.log.warn({ err: error }, 'rate limit: the Redis store does not answer; requests are not counted meanwhile');
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
      const seconds = Math.max(1, Math.ceil(ttl / 1000));
      const error = new ApiError('TOO_MANY_REQUESTS', `Rate limit exceeded: at most ${max} requests in the window. Retry in ${seconds} second${seconds === 1 ? '' : 's'}.`, {
        headers: { 'retry-after': String(seconds) },
      });
      // Routes outside the API's error handler (GraphQL, the user's own) read the status from `statusCode`.
      return Object.assign(error, { statusCode: error.status });
    },
  });
}
