/**
 * CORS with @fastify/cors, for browsers on other origins (API Platform Admin, a SPA). Defaults fit a REST API:
 * every method the API exposes is allowed, and the headers a client needs are readable (`Link` for the Hydra
 * documentation, `Location` after a POST, `ETag`). Only real preflights (an `Origin` and an
 * `Access-Control-Request-Method`) are answered by the plugin; other `OPTIONS` requests still reach the API's own
 * routes, which answer 204 with `Allow`.
 */
import fastifyCors, { type FastifyCorsOptions } from '@fastify/cors';
import type { FastifyInstance, FastifyRequest } from 'fastify';

/** @fastify/cors options (https://github.com/fastify/fastify-cors#options), without `delegator`. */
export type CorsOptions = Omit<FastifyCorsOptions, 'delegator'>;

/** What `cors: {}` means: any origin, the API's methods, `Link`, `Location` and `ETag` exposed. */
export const DEFAULT_CORS: CorsOptions = {
  origin: '*',
  methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
  exposedHeaders: ['Link', 'Location', 'ETag'],
};

const isPreflight = (request: FastifyRequest): boolean =>
  request.method === 'OPTIONS' &&
  request.headers.origin !== undefined &&
  request.headers['access-control-request-method'] !== undefined;

/** No CORS at all: for the routes the production plugin does not serve. */
const NO_CORS: CorsOptions = { origin: false };

/**
 * `servesAll`: every route gets CORS; otherwise the API's routes only (those with `config.resourceApi`), read per
 * request here since @fastify/cors's hook is the whole app's (a cost paid only with CORS on).
 */
export async function registerCors(
  app: FastifyInstance,
  options: CorsOptions,
  scope: { readonly servesAll: boolean },
): Promise<void> {
  const { hook, ...settings } = { ...DEFAULT_CORS, ...options };
  const notPreflight: CorsOptions = { ...settings, preflight: false };
  const { servesAll } = scope;
  await app.register(fastifyCors, {
    ...(hook ? { hook } : {}),
    delegator: (request, callback) =>
      callback(
        null,
        !servesAll && request.routeOptions.config.resourceApi === undefined
          ? NO_CORS
          : isPreflight(request)
            ? settings
            : notPreflight,
      ),
  });
}
