/**
 * Requests that count more than once against the rate limit: a GraphQL document counts each of its root fields, known
 * only once the document is parsed, long after the rate limit counted the request itself. The rate limit (when it is
 * on) gives each such request a way to count more (`countMoreWith`); the GraphQL endpoint calls `countMore`, which does
 * nothing when the rate limit is off. A module of its own: the endpoint need not load @fastify/rate-limit. It lives in
 * routing/, below both graphql/ and production/ (production/ reads graphql/, so graphql/ may not read production/).
 */
import type { FastifyRequest } from 'fastify';

/** Counts `count` more requests for this one; rejects with the 429 error when that is over the limit. */
export type CountMore = (count: number) => Promise<void>;

/**
 * The request's property that holds its counter. A property, not a WeakMap keyed by requests: a WeakMap entry per
 * request made the garbage collector's work on every young generation several times larger (docs/performance.md).
 * The rate limit decorates requests with it, so every request has the same shape.
 */
export const COUNT_MORE_PROPERTY = 'resourceApiCountMore';

type WithCounter = { [COUNT_MORE_PROPERTY]?: CountMore | null };

export function countMoreWith(request: FastifyRequest, counter: CountMore): void {
  (request as unknown as WithCounter)[COUNT_MORE_PROPERTY] = counter;
}

/** Counts the request `count` times more against its rate limit (none when the limit is off or does not cover it). */
export async function countMore(request: FastifyRequest, count: number): Promise<void> {
  if (count > 0) await (request as unknown as WithCounter)[COUNT_MORE_PROPERTY]?.(count);
}
