/**
 * The span of each request to one of the API's routes, as OpenTelemetry's HTTP server conventions name it
 * (`GET /api/books/{id}`: the method and the route's template), with `http.request.method`, `http.route`, `url.path`,
 * `url.scheme`, `http.response.status_code`, and for an operation `resource_api.operation` and
 * `resource_api.resource`. A 5xx marks it failed.
 *
 * It starts when the request reaches the route (`onRequest`) and ends once the response is sent (`onResponse`); the
 * handler runs with it as the active span, so the spans of the stages and statements are its children. Its parent is
 * the active span when there is one (an HTTP instrumentation's), else the `traceparent` the client sent (through the
 * propagator the SDK installed). Nothing is kept for a request whose span does not record.
 */
import {
  type Context,
  context as traceContext,
  propagation,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { tracer } from './tracer.js';

/** What the span tells of a route: its template (`/api/books/{id}`) and, for an operation, its name and resource. */
export interface RouteDescription {
  readonly route: string;
  readonly operation?: string;
  readonly resource?: string;
}

/** A recording request span, with the context its handler runs in. */
interface RequestSpan {
  readonly span: Span;
  readonly context: Context;
  /** The error the answer was made of (thrown by the handler or a hook), recorded if the answer is a 5xx. */
  error?: unknown;
}

/** The spans of the requests in flight that record. */
const spans = new WeakMap<FastifyRequest, RequestSpan>();

/** The request span's hooks and the handler's wrapper, for one route. */
export interface RequestSpanHooks {
  readonly start: (request: FastifyRequest) => void;
  readonly end: (request: FastifyRequest, reply: FastifyReply) => void;
  /** Notes the error the answer is made of (Fastify's `onError`), for `end` to record when the answer is a 5xx. */
  readonly noteError: (request: FastifyRequest, error: unknown) => void;
  /** Runs the route's handler in the request span's context (as it is when nothing records). */
  readonly runHandler: <R>(
    handler: (this: unknown, request: FastifyRequest, reply: FastifyReply) => R,
    self: unknown,
    request: FastifyRequest,
    reply: FastifyReply,
  ) => R;
}

export function createRequestSpanHooks(description: RouteDescription): RequestSpanHooks {
  const names = new Map<string, string>();
  const staticAttributes = {
    'http.route': description.route,
    ...(description.operation ? { 'resource_api.operation': description.operation } : {}),
    ...(description.resource ? { 'resource_api.resource': description.resource } : {}),
  };
  const server = { kind: SpanKind.SERVER, attributes: staticAttributes };
  const internal = { kind: SpanKind.INTERNAL, attributes: staticAttributes };
  return {
    start(request) {
      const active = traceContext.active();
      // Under an HTTP instrumentation's span, this one is a step inside it; else it is the server span itself.
      const inProcess = trace.getSpan(active) !== undefined;
      const parent = inProcess ? active : propagation.extract(active, request.headers);
      let name = names.get(request.method);
      if (name === undefined) names.set(request.method, (name = `${request.method} ${description.route}`));
      const span = tracer.startSpan(name, inProcess ? internal : server, parent);
      if (!span.isRecording()) return;
      span.setAttribute('http.request.method', request.method);
      span.setAttribute('url.path', request.url.split('?')[0]!);
      span.setAttribute('url.scheme', request.protocol);
      spans.set(request, { span, context: trace.setSpan(parent, span) });
    },
    end(request, reply) {
      const state = spans.get(request);
      if (!state) return;
      spans.delete(request);
      const { span } = state;
      const status = reply.statusCode;
      span.setAttribute('http.response.status_code', status);
      if (status >= 500) {
        if (state.error instanceof Error) span.recordException(state.error);
        span.setAttribute('error.type', String(status));
        span.setStatus({ code: SpanStatusCode.ERROR });
      }
      span.end();
    },
    noteError(request, error) {
      const state = spans.get(request);
      if (state) state.error = error;
    },
    runHandler(handler, self, request, reply) {
      const state = spans.get(request);
      if (!state) return handler.call(self, request, reply);
      return traceContext.with(state.context, handler, self, request, reply);
    },
  };
}
