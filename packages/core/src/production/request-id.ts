/**
 * Request ids that follow a request across services: `genRequestId` is a Fastify `genReqId` that keeps the caller's
 * `X-Request-Id` when it is a plausible id (a proxy or a gateway set it) and makes a random UUID otherwise; the plugin
 * echoes `request.id` in the response's `X-Request-Id`. Fastify's pino logger writes it as `reqId` on every log line
 * of the request.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { onRequestHookHandler } from 'fastify';

/** The header read and echoed. */
export const REQUEST_ID_HEADER = 'x-request-id';

// Letters, digits and a few separators, 1 to 128 of them: an id, never a way to forge log lines or bloat them.
const PLAUSIBLE_ID = /^[A-Za-z0-9._:@/+=-]{1,128}$/;

/**
 * A Fastify `genReqId`: the incoming `X-Request-Id` when it is plausible, else a random UUID.
 *
 * @example
 * const app = Fastify({ logger: true, genReqId: genRequestId });
 */
export function genRequestId(request: IncomingMessage): string {
  const incoming = request.headers[REQUEST_ID_HEADER];
  return typeof incoming === 'string' && PLAUSIBLE_ID.test(incoming) ? incoming : randomUUID();
}

/** The hook that sends `request.id` back in `header` on every response of the routes it is added to. */
export function createRequestIdEcho(header: string): onRequestHookHandler {
  return (request, reply, done) => {
    reply.header(header, request.id);
    done();
  };
}
