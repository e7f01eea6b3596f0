/**
 * What the API's responses say to caches when nothing decided it for them: every response varies on `Accept` (JSON-LD
 * or JSON, errors as JSON-LD or problem+json: a cache keeps one per format, as API Platform sends); with HTTP caching
 * on, every response varies on the credentials too, and one the respond stage did not give a `Cache-Control` (errors,
 * the documents, 405s, every GraphQL response) is `private, no-store`. A shared cache in front (Varnish
 * keeps a GET without `Cache-Control` for its default lifetime) can then keep only what the app declared and tagged,
 * which its purges reach.
 */
import type { FastifyReply } from 'fastify';
import { mergeVary } from './vary.js';

/** Sets the headers above on `reply`, in an `onSend` hook of one of the API's scopes. */
export function applyUndecidedCacheHeaders(reply: FastifyReply, httpCache: boolean): void {
  const vary = reply.getHeader('vary');
  if (!httpCache) {
    reply.header('vary', vary === undefined ? 'Accept' : mergeVary(String(vary), 'Accept'));
    return;
  }
  // The login route's `no-store` included: every response varies on the credentials.
  reply.header('vary', vary === undefined ? 'Accept, Authorization' : mergeVary(String(vary), 'Accept, Authorization'));
  if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'private, no-store');
}
