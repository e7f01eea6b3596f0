/**
 * The count of the purge clock (`http-cache/purge-clock.ts`) when a cacheable read started, kept on the request: the
 * in-process cache's lookup and the shared caches' hooks note it, whichever runs first, and both compare it with the
 * clock when the response leaves. A property, not a WeakMap keyed by requests: an entry per request made the garbage
 * collector's work on every young generation several times larger (docs/performance.md).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { PurgeClock } from '../http-cache/purge-clock.js';

const PROPERTY = 'resourceApiPurgesAtStart';

type WithCount = { [PROPERTY]: number | null };

/** Gives every request of the scope the property (null), so that all have one shape. */
export function registerPurgeClockProperty(app: FastifyInstance): void {
  if (!app.hasRequestDecorator(PROPERTY)) app.decorateRequest(PROPERTY, null);
}

/** Notes the clock's count as the request's start, unless an earlier hook did. */
export function markPurgesAtStart(request: FastifyRequest, clock: PurgeClock): void {
  const withCount = request as unknown as WithCount;
  withCount[PROPERTY] ??= clock.now;
}

/** The count noted when the request started; undefined when it was not noted (not a cacheable read). */
export function readPurgesAtStart(request: FastifyRequest): number | undefined {
  return (request as unknown as WithCount)[PROPERTY] ?? undefined;
}
