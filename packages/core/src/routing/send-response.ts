/**
 * Sends what an operation returned, with its strong `ETag` when the body is the representation the item's (or the
 * collection's) GET gives (`tagged`: `metadata/carries-entity-tag.ts`, decided once per route). The body is serialized
 * here once, hashed, and those same bytes are sent, so the tag follows every byte: the format (JSON-LD or JSON), the
 * caller's groups, the page. On GET and HEAD, `If-None-Match` naming the tag (weak comparison, or `*`) gives 304 with
 * the ETag and no body; `If-Match` naming none of it gives 412. Writes check their conditions in the pipeline. The
 * operation's `Vary` is added to the one hooks set before (CORS), never put in its place.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../errors.js';
import type { OperationResponse } from '../pipeline/operation-context.js';
import { computeEntityTag, ifMatchHolds, ifNoneMatchMatches } from '../pipeline/entity-tag.js';
import { mergeVary } from './vary.js';

export function sendResponse(
  request: FastifyRequest,
  reply: FastifyReply,
  response: OperationResponse,
  tagged: boolean,
): FastifyReply {
  const headers = withEarlierVary(reply, response.headers);
  if (!tagged || response.body === undefined)
    return reply
      .code(response.status)
      .headers(headers)
      .send(response.json ?? response.body);
  const payload = response.json ?? JSON.stringify(response.body);
  const etag = computeEntityTag(payload);
  if (request.method === 'GET' || request.method === 'HEAD') {
    const { 'if-match': ifMatch, 'if-none-match': ifNoneMatch } = request.headers;
    if (ifMatch !== undefined && !ifMatchHolds(ifMatch, [etag])) {
      throw new ApiError(
        'PRECONDITION_FAILED',
        'None of the ETags in If-Match is the current one of this representation.',
      );
    }
    if (ifNoneMatch !== undefined && ifNoneMatchMatches(ifNoneMatch, [etag]))
      // A 304 carries the caching headers the 200 would (RFC 9110 §15.4.5): a cache refreshes what it keeps with them.
      return reply.code(304).headers(pickCaching(headers)).header('etag', etag).send();
  }
  return reply.code(response.status).headers(headers).header('etag', etag).send(payload);
}

/**
 * The operation's headers, with a `Vary` that keeps what hooks before it put there: @fastify/cors's `Origin`, when
 * the allowed origins are a list, so that a cache keeps one response per origin (each with its own
 * `Access-Control-Allow-Origin`) instead of answering every origin with the first one's.
 */
function withEarlierVary(
  reply: FastifyReply,
  headers: Readonly<Record<string, string>>,
): Readonly<Record<string, string>> {
  const earlier = reply.getHeader('vary');
  if (earlier === undefined || headers.vary === undefined) return headers;
  return { ...headers, vary: mergeVary(headers.vary, String(earlier)) };
}

/** The headers of a response that a 304 repeats: `Cache-Control` and `Vary`. */
function pickCaching(headers: Readonly<Record<string, string>>): Record<string, string> {
  const picked: Record<string, string> = {};
  if (headers['cache-control'] !== undefined) picked['cache-control'] = headers['cache-control'];
  if (headers.vary !== undefined) picked.vary = headers.vary;
  return picked;
}
