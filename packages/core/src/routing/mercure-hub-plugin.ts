/**
 * The built-in Mercure hub on its own, as a Fastify plugin: for an app that serves no resource but is the hub of
 * others (their `mercure.url` points at it), or to run the hub in a process of its own. `resourceApi` serves the same
 * hub itself when no external one is configured.
 */
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { createBuiltinHub } from '../mercure/builtin-hub.js';
import { toHubKey } from '../mercure/hub-tokens.js';
import { type MercureHubOptions, resolveHubLimits } from '../mercure/mercure-options.js';
import { findProductionScopeSetup } from './api-scope.js';
import { HUB_PATH, registerMercureRoutes } from './mercure-routes.js';

/** The largest update a publisher may POST, in bytes. */
const PUBLISH_BODY_LIMIT = 1024 * 1024;

async function mercureHubPlugin(app: FastifyInstance, options: MercureHubOptions): Promise<void> {
  const hub = createBuiltinHub(resolveHubLimits(options, 'mercureHub'));
  // Open subscriptions would hold `app.close()` until their clients leave: they are ended first.
  app.addHook('preClose', () => hub.close());
  await app.register(registerMercureRoutes, {
    prefix: HUB_PATH,
    hub,
    jwtKey: options.jwtSecret ? toHubKey(options.jwtSecret) : null,
    anonymous: options.anonymous ?? true,
    bodyLimit: PUBLISH_BODY_LIMIT,
    apiPrefix: '',
    setUpScope: findProductionScopeSetup(app) ?? (() => {}),
  });
}

/**
 * The built-in Mercure hub alone, at `/.well-known/mercure`.
 *
 * @example
 * const hub = Fastify();
 * await hub.register(mercureHub, { jwtSecret: process.env.MERCURE_JWT_SECRET });
 * await hub.listen({ port: 3001 });
 */
export const mercureHub: (app: FastifyInstance, options: MercureHubOptions) => Promise<void> = fp(mercureHubPlugin, {
  name: '@resource-api/core.mercure-hub',
  fastify: '5.x',
});
