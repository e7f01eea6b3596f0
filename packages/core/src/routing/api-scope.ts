/**
 * What the API tells the production plugin about its routes, so that the production pieces (request ids, security
 * headers, coalesced writes, rate limits, CORS) reach the API's routes and not the application's own.
 *
 * Two links, both set up when the routes are defined, so that nothing is decided per request:
 * - **The API's scopes.** The API's routes live in Fastify contexts of their own (the REST routes under the prefix,
 *   the GraphQL endpoint). Each calls `prepareApiScope` before it defines a route: the hooks added there run for every
 *   route of the scope and for its 404s, before the scope's own hooks (the GraphiQL page is answered by one).
 * - **Marked routes.** Every route of the API carries `config.resourceApi` from its definition: which operation, or
 *   which kind of route. The rate limit reads it in its `onRoute` hook, to find a route's own limit by name.
 */
import type { FastifyInstance } from 'fastify';

/** What a route of the API is, as its `config.resourceApi` says. */
export type ApiRouteMark =
  | { readonly kind: 'operation'; readonly operation: string; readonly resource: string }
  /** The login route; `identifier` is the body's key naming the account (`email`). */
  | { readonly kind: 'login'; readonly identifier: string }
  /** The GraphQL endpoint (`GET`, `HEAD` and `POST` of its path). */
  | { readonly kind: 'graphql' }
  /** Any other route of the API: the documents, `OPTIONS`, 405s, the session routes, GraphiQL's files. */
  | { readonly kind: 'other' };

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Set on the routes of the API (`routing/api-scope.ts`); absent on the application's own. */
    resourceApi?: ApiRouteMark;
  }
}

/**
 * One of the API's Fastify contexts: the REST routes under `prefix`, the GraphQL endpoint at `path`, the stored
 * files of uploads, served under `prefix` (`/media`), or the built-in Mercure hub.
 */
export type ApiScope =
  | { readonly kind: 'rest'; readonly prefix: string }
  | { readonly kind: 'files'; readonly prefix: string }
  /** The built-in Mercure hub, at `/.well-known/mercure`. */
  | { readonly kind: 'hub'; readonly path: string }
  | { readonly kind: 'graphql'; readonly path: string; readonly graphiql: boolean };

/** Adds hooks to one of the API's contexts (called once per context, before its routes are defined). */
export type ApiScopeSetup = (scope: FastifyInstance, info: ApiScope) => void;

/** The config of a route of the API: its mark. */
export function markRoute(mark: ApiRouteMark): { resourceApi: ApiRouteMark } {
  return { resourceApi: mark };
}

/**
 * The key under which the production plugin, registered before the API, leaves its setup of the API's scopes on the
 * Fastify instance (a decorator: the API reads it when it defines its routes).
 */
export const API_SCOPE_SETUP = Symbol.for('@resource-api/core.api-scope-setup');

/** The production plugin's setup of the API's scopes, when it is registered (before the API). */
export function findProductionScopeSetup(app: FastifyInstance): ApiScopeSetup | undefined {
  return (app as unknown as Record<symbol, ApiScopeSetup | undefined>)[API_SCOPE_SETUP];
}

/**
 * Makes `scope` one of the API's: every route defined in it from now on is marked (`other` unless its definition
 * marked it), then `setUp` adds its hooks (the API's own and the production plugin's).
 */
export function prepareApiScope(scope: FastifyInstance, info: ApiScope, setUp: ApiScopeSetup): void {
  scope.addHook('onRoute', (route) => {
    if (route.config?.resourceApi === undefined) route.config = { ...route.config, ...markRoute({ kind: 'other' }) };
  });
  setUp(scope, info);
}
