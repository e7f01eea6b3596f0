/**
 * The hooks of one API route: its request span (`request-spans.ts`), when an SDK was installed as the plugin started,
 * and its request metrics (`metrics.ts`), when they are on; neither, no hook at all. They are the route's own hooks,
 * not global ones: the application's other routes are neither traced nor counted. Callback hooks, not async ones: no
 * promise per request.
 */
import type {
  FastifyReply,
  FastifyRequest,
  onErrorHookHandler,
  onRequestHookHandler,
  onResponseHookHandler,
  RouteHandlerMethod,
  RouteOptions,
} from 'fastify';
import { addRouteHook } from '../route-hooks.js';
import type { RecordRequest } from './metrics.js';
import { createRequestSpanHooks, type RouteDescription } from './request-spans.js';

/** What a route gets: its request span (when an SDK is installed), its metrics (when they are on). */
export interface RouteTelemetry {
  readonly traced: boolean;
  readonly record: RecordRequest | undefined;
}

/** Traces and measures the requests of `route`, as `telemetry` says. */
export function attachRouteTelemetry(
  route: RouteOptions,
  description: RouteDescription,
  telemetry: RouteTelemetry,
): void {
  const { record } = telemetry;
  if (!telemetry.traced) {
    if (!record) return;
    const recordRequest: onResponseHookHandler = (request, reply, done) => {
      record(request.method, reply.statusCode, reply.elapsedTime);
      done();
    };
    addRouteHook(route, 'onResponse', recordRequest);
    return;
  }
  const spans = createRequestSpanHooks(description);
  const startRequestSpan: onRequestHookHandler = (request, _reply, done) => {
    spans.start(request);
    done();
  };
  const endRequestSpan: onResponseHookHandler = record
    ? (request, reply, done) => {
        spans.end(request, reply);
        record(request.method, reply.statusCode, reply.elapsedTime);
        done();
      }
    : (request, reply, done) => {
        spans.end(request, reply);
        done();
      };
  // Every error the answer is made of reaches Fastify's onError, whether the handler threw it, rejected with it or
  // sent it, or a hook did.
  const noteError: onErrorHookHandler = (request, _reply, error, done) => {
    spans.noteError(request, error);
    done();
  };
  addRouteHook(route, 'onRequest', startRequestSpan, 'first');
  addRouteHook(route, 'onError', noteError);
  addRouteHook(route, 'onResponse', endRequestSpan);
  const handler = route.handler as (this: unknown, request: FastifyRequest, reply: FastifyReply) => unknown;
  route.handler = function runInRequestSpan(request, reply) {
    return spans.runHandler(handler, this, request, reply);
  } as RouteHandlerMethod;
}
