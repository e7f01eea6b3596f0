/**
 * The hooks of one API route: its request span (`request-spans.ts`) and, when metrics are on, its request metrics
 * (`metrics.ts`). They are the route's own hooks, not global ones: the application's other routes are neither traced
 * nor counted. Callback hooks, not async ones: no promise per request.
 */
import type {
  FastifyReply,
  FastifyRequest,
  onRequestHookHandler,
  onResponseHookHandler,
  RouteHandlerMethod,
  RouteOptions,
} from 'fastify';
import type { RecordRequest } from './metrics.js';
import { createRequestSpanHooks, type RouteDescription } from './request-spans.js';

/** Adds `hook` to the route's own hooks of that name: first (it times what the others do) or last. */
function addRouteHook<H>(route: RouteOptions, name: 'onRequest' | 'onResponse', hook: H, first: boolean): void {
  const hooks = route[name] as H | H[] | undefined;
  const existing = hooks === undefined ? [] : Array.isArray(hooks) ? hooks : [hooks];
  (route as unknown as Record<string, H[]>)[name] = first ? [hook, ...existing] : [...existing, hook];
}

/** Traces (and, with `record`, measures) the requests of `route`. */
export function attachRouteTelemetry(
  route: RouteOptions,
  description: RouteDescription,
  record: RecordRequest | undefined,
): void {
  const spans = createRequestSpanHooks(description);
  const onRequest: onRequestHookHandler = (request, _reply, done) => {
    spans.start(request);
    done();
  };
  const onResponse: onResponseHookHandler = record
    ? (request, reply, done) => {
        spans.end(request, reply);
        record(request.method, reply.statusCode, reply.elapsedTime);
        done();
      }
    : (request, reply, done) => {
        spans.end(request, reply);
        done();
      };
  addRouteHook(route, 'onRequest', onRequest, true);
  addRouteHook(route, 'onResponse', onResponse, false);
  const handler = route.handler as (this: unknown, request: FastifyRequest, reply: FastifyReply) => unknown;
  route.handler = function runInRequestSpan(request, reply) {
    return spans.runHandler(handler, this, request, reply);
  } as RouteHandlerMethod;
}
