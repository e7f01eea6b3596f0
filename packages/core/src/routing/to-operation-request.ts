/** The HTTP side of the operation context: a Fastify request → the transport-agnostic `OperationRequest`. */
import type { FastifyRequest } from 'fastify';
import type { OperationRequest } from '../pipeline/operation-context.js';

/**
 * The origin the API's absolute IRIs are written on (`@vocab`, the `Link` header, the contexts): the request's scheme
 * and host (`X-Forwarded-Proto` and `-Host` under Fastify's `trustProxy`). The scheme is `http` or `https`, never
 * another word a header sent; the host is checked against the `trustedHosts` option, when set, before any route runs.
 */
export const readOrigin = (request: FastifyRequest): string =>
  `${request.protocol === 'https' ? 'https' : 'http'}://${request.host}`;

export function toOperationRequest(request: FastifyRequest): OperationRequest {
  const { url } = request;
  const mark = url.indexOf('?');
  return {
    uriVariables: (request.params ?? {}) as Record<string, string>,
    query: request.query as OperationRequest['query'],
    rawQuery: mark === -1 ? '' : url.slice(mark + 1),
    path: mark === -1 ? url : url.slice(0, mark),
    body: request.body,
    contentType: request.headers['content-type'],
    accept: request.headers.accept,
    origin: readOrigin(request),
    authorization: request.headers.authorization,
    method: request.method,
    ifMatch: request.headers['if-match'],
    ifNoneMatch: request.headers['if-none-match'],
    // Read by providers, processors and hooks only when they ask (the address is a getter, computed on access).
    client: request,
  };
}
