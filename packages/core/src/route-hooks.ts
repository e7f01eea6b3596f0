/**
 * A route's own hooks, added from an `onRoute` hook: the rate limit's counts, telemetry's spans, the in-process
 * cache's lookup. Fastify runs a route's own hooks after those of its instance, in the order of the route's list.
 * Written against the route's shape, not Fastify's types: only the transports import Fastify.
 */

/** The hooks a route may list of its own that these modules add to. */
export type RouteHookName = 'onRequest' | 'preHandler' | 'onError' | 'onResponse';

/** Adds `hook` to the route's own hooks of that name: last (the default), or first (it times what the others do). */
export function addRouteHook<H>(
  route: object,
  name: RouteHookName,
  hook: H,
  position: 'first' | 'last' = 'last',
): void {
  const hooks = (route as Record<string, unknown>)[name] as H | H[] | undefined;
  const existing = hooks === undefined ? [] : Array.isArray(hooks) ? hooks : [hooks];
  (route as Record<string, H[]>)[name] = position === 'first' ? [hook, ...existing] : [...existing, hook];
}
