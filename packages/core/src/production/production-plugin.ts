/**
 * The production plugin: what a server in production needs around the API, registered by the application before
 * `resourceApi`. CORS, security headers, rate limits, the health routes, request ids, coalesced writes, and the
 * graceful close. Each piece lives in its own file of this folder; docs/production.md describes the options.
 *
 * Which routes it serves: the API's (`routes: 'api'`, the default), or every route of the application
 * (`routes: 'all'`). The API's routes are found when they are defined, never per request: the API hands each of its
 * Fastify contexts to the plugin's setup (`routing/api-scope.ts`), which adds the hooks there, so they run for the
 * API's routes and 404s and for nothing else. The health routes are the plugin's own, and get the same hooks.
 */
import type { FastifyInstance, onRequestHookHandler, onSendHookHandler } from 'fastify';
import fp from 'fastify-plugin';
import { DeclarationError } from '../errors.js';
import { API_SCOPE_SETUP, type ApiScopeSetup } from '../routing/api-scope.js';
import { type CoalescedWritesOptions, createCoalescedWrites } from './coalesced-writes.js';
import type { CorsOptions } from './cors.js';
import { registerGracefulClose } from './graceful-close.js';
import { type HealthOptions, registerHealthRoutes } from './health.js';
import type { RateLimitOptions } from './rate-limit.js';
import { createRequestIdEcho, REQUEST_ID_HEADER } from './request-id.js';
import { createSecurityHeaders, type SecurityHeadersOptions } from './security-headers.js';

/** The options of the `production` plugin: `app.register(production, { cors, rateLimit, … })`, before `resourceApi`. */
export interface ProductionOptions {
  /**
   * The routes the pieces serve: `'api'` (default), the API's routes only (REST, documents, GraphQL, GraphiQL, login)
   * and the health routes; `'all'`, every route of the application, its own included. The graceful close is the
   * server's and always applies to every response.
   */
  readonly routes?: 'api' | 'all';
  /**
   * CORS with @fastify/cors (off by default): its options, e.g. `{ origin: ['https://admin.example.com'] }`; every
   * API method is allowed and `Link`, `Location`, `ETag` are exposed unless you say otherwise.
   */
  readonly cors?: CorsOptions | false;
  /**
   * Security headers as helmet sets them (on by default): `X-Content-Type-Options: nosniff`, `X-Frame-Options: DENY`,
   * HSTS, a Content-Security-Policy under which Swagger UI and GraphiQL still run (requests that do not accept HTML get
   * `default-src 'none'; frame-ancestors 'none'` instead); helmet options merge over these.
   */
  readonly securityHeaders?: SecurityHeadersOptions | boolean;
  /**
   * Rate limiting with @fastify/rate-limit (off by default): `{ max, timeWindow, perUser, redis, routes }`; over the
   * limit a 429 `API_ERR_RATE_LIMITED` with `Retry-After`.
   */
  readonly rateLimit?: RateLimitOptions | false;
  /**
   * `GET /health` (liveness) and `GET /health/ready` (the database answers `select 1`), on by default; `false` for
   * none.
   */
  readonly health?: HealthOptions | false;
  /** The response header that echoes the request id (default `x-request-id`); `false` for none. */
  readonly requestIdHeader?: string | false;
  /**
   * The responses finished in one turn of the event loop are written together at its end (on by default): a busy
   * server then wakes its clients once per turn instead of once per response. `{ maxDelayMs }` (default 1) bounds how
   * long a response waits for the others; `false` writes each response as soon as it is ready.
   */
  readonly coalesceWrites?: CoalescedWritesOptions | boolean;
}

const OPTION_NAMES = new Set([
  'routes',
  'cors',
  'securityHeaders',
  'rateLimit',
  'health',
  'requestIdHeader',
  'coalesceWrites',
]);

/** Refuses what would silently do nothing: an unknown option, a `routes` that is neither `'api'` nor `'all'`. */
function assertOptions(options: ProductionOptions): void {
  for (const name of Object.keys(options)) {
    if (!OPTION_NAMES.has(name))
      throw new DeclarationError(
        `production: "${name}" is no option of the production plugin (it has ${[...OPTION_NAMES].join(', ')}).`,
      );
  }
  if (options.routes !== undefined && options.routes !== 'api' && options.routes !== 'all')
    throw new DeclarationError(`production: routes must be 'api' or 'all', got ${JSON.stringify(options.routes)}.`);
}

/** The request hooks of the pieces that are on, in the order they run. */
interface PieceHooks {
  readonly onRequest: onRequestHookHandler[];
  readonly onSend: onSendHookHandler[];
}

function addHooks(scope: FastifyInstance, hooks: PieceHooks): void {
  for (const hook of hooks.onRequest) scope.addHook('onRequest', hook);
  for (const hook of hooks.onSend) scope.addHook('onSend', hook);
}

async function productionPlugin(app: FastifyInstance, options: ProductionOptions): Promise<void> {
  assertOptions(options);
  if (app.hasDecorator('resourceApi'))
    throw new DeclarationError(
      'Register the production plugin before resourceApi: its pieces reach the API through the routes the API defines after it.',
    );
  const servesAll = options.routes === 'all';
  // The server's, whatever `routes` says: every response sent while the server closes ends its connection.
  registerGracefulClose(app);

  // Learnt when the API defines its GraphQL routes: the page whose inline script the policy allows.
  let graphiqlPath: string | undefined;
  const hooks: PieceHooks = { onRequest: [], onSend: [] };
  const requestIdHeader = options.requestIdHeader ?? REQUEST_ID_HEADER;
  if (requestIdHeader !== false) hooks.onRequest.push(createRequestIdEcho(requestIdHeader));
  if (options.securityHeaders !== false) {
    const headers =
      options.securityHeaders === true || options.securityHeaders === undefined ? {} : options.securityHeaders;
    hooks.onRequest.push(createSecurityHeaders(headers, () => graphiqlPath));
  }
  // The onSend hooks after it (the API's own) run when the response is released, at the end of its turn.
  if (options.coalesceWrites !== false)
    hooks.onSend.push(
      createCoalescedWrites(
        options.coalesceWrites === true || options.coalesceWrites === undefined ? {} : options.coalesceWrites,
      ),
    );

  const api = () => (app.hasDecorator('resourceApi') ? app.resourceApi : undefined);
  // CORS and rate limiting (with their libraries) are loaded only when asked for: an app without them does not keep
  // their code in memory (docs/performance.md, "What made it faster").
  if (options.cors) await (await import('./cors.js')).registerCors(app, options.cors, { servesAll });
  const limitRoute = options.rateLimit
    ? await (await import('./rate-limit.js')).registerRateLimit(app, options.rateLimit, {
        verifyToken: () => api()?.verifyToken,
      })
    : undefined;

  if (servesAll) {
    addHooks(app, hooks);
    if (limitRoute) app.addHook('onRoute', limitRoute);
  }
  const setUpScope: ApiScopeSetup = (scope, info) => {
    if (info.kind === 'graphql' && info.graphiql) graphiqlPath = info.path;
    if (servesAll) return;
    addHooks(scope, hooks);
    if (limitRoute) scope.addHook('onRoute', limitRoute);
  };
  app.decorate(API_SCOPE_SETUP, setUpScope);

  if (options.health !== false) {
    const health = options.health ?? {};
    const probes = () => {
      const handle = api();
      return handle ? { database: handle.database, prefix: handle.metadata.prefix } : undefined;
    };
    if (servesAll) registerHealthRoutes(app, { api: probes, health });
    else
      await app.register(async (scope) => {
        addHooks(scope, hooks);
        registerHealthRoutes(scope, { api: probes, health });
      });
  }
}

/**
 * The production pieces, as a Fastify plugin of their own: register it before `resourceApi`.
 *
 * @example
 * const app = Fastify();
 * await app.register(production, { cors: { origin: ['https://admin.example.com'] }, rateLimit: { max: 100 } });
 * await app.register(resourceApi, { resources: [Book] });
 */
export const production: (app: FastifyInstance, options: ProductionOptions) => Promise<void> = fp(productionPlugin, {
  name: '@resource-api/core/production',
  fastify: '5.x',
});
