/**
 * The production concerns the plugin sets up before the API's routes, in this order: the graceful close, the
 * lingering close of refused bodies, coalesced writes, the request id echo, the health routes, CORS, security
 * headers, rate limiting. Each lives in its own file of this folder; docs/production.md describes the options.
 */
import type { FastifyInstance } from 'fastify';
import type { MetadataRegistry } from '../metadata/types.js';
import type { TokenService } from '../security/jwt.js';
import type { Database } from '../state/database.js';
import { type CoalescedWritesOptions, registerCoalescedWrites } from './coalesced-writes.js';
import type { CorsOptions } from './cors.js';
import { registerGracefulClose } from './graceful-close.js';
import { type HealthOptions, registerHealthRoutes } from './health.js';
import { registerLingeringClose } from './lingering-close.js';
import type { RateLimitOptions } from './rate-limit.js';
import { REQUEST_ID_HEADER, registerRequestIdEcho } from './request-id.js';
import { registerSecurityHeaders, type SecurityHeadersOptions } from './security-headers.js';
import { registerTrustedHosts, type TrustedHost } from './trusted-hosts.js';

export interface ProductionOptions {
  readonly cors?: CorsOptions | false;
  readonly securityHeaders?: SecurityHeadersOptions | boolean;
  readonly rateLimit?: RateLimitOptions | false;
  readonly health?: HealthOptions | false;
  readonly requestIdHeader?: string | false;
  readonly coalesceWrites?: CoalescedWritesOptions | boolean;
  readonly trustedHosts?: readonly TrustedHost[];
}

export interface ProductionContext {
  readonly registry: MetadataRegistry;
  readonly database: Database;
  readonly tokens: TokenService | undefined;
  /** The login route's path under the prefix, when it is on. */
  readonly loginPath: string | undefined;
  /** The body key of the login route naming the account (`email`): the login is limited per account too. */
  readonly loginIdentifier?: string | undefined;
  /** The GraphQL endpoint, when it is on, and whether it serves GraphiQL. */
  readonly graphql: { readonly path: string; readonly graphiql: boolean } | undefined;
}

export async function registerProductionPlugins(
  app: FastifyInstance,
  options: ProductionOptions,
  context: ProductionContext,
): Promise<void> {
  registerGracefulClose(app);
  // First of the request hooks: a request for another host is refused before anything reads its host.
  if (options.trustedHosts) registerTrustedHosts(app, options.trustedHosts, context.registry.prefix);
  registerLingeringClose(app);
  if (options.coalesceWrites !== false)
    registerCoalescedWrites(
      app,
      options.coalesceWrites === true || options.coalesceWrites === undefined ? {} : options.coalesceWrites,
    );
  const requestIdHeader = options.requestIdHeader ?? REQUEST_ID_HEADER;
  if (requestIdHeader !== false) registerRequestIdEcho(app, requestIdHeader);
  if (options.health !== false)
    registerHealthRoutes(app, {
      database: context.database,
      prefix: context.registry.prefix,
      health: options.health ?? {},
    });
  // CORS and rate limiting (with their libraries) are loaded only when asked for: an app without them does not keep
  // their code in memory (docs/performance.md, "What made it faster").
  if (options.cors) await (await import('./cors.js')).registerCors(app, options.cors);
  if (options.securityHeaders !== false) {
    const graphiqlPath = context.graphql?.graphiql ? context.graphql.path : undefined;
    registerSecurityHeaders(app, {
      headers: options.securityHeaders === true || options.securityHeaders === undefined ? {} : options.securityHeaders,
      graphiqlPath,
    });
  }
  if (options.rateLimit) {
    await (await import('./rate-limit.js')).registerRateLimit(app, options.rateLimit, {
      registry: context.registry,
      tokens: context.tokens,
      loginPath: context.loginPath,
      loginIdentifier: context.loginIdentifier,
      graphqlPath: context.graphql?.path,
    });
  }
}
