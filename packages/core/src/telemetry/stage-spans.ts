/**
 * Spans for the stages of the request flow that take time of their own (`pipeline/run-operation.ts`): read (the
 * provider and its SQL), deserialize, validate, write (the processor, its transaction) and serialize. The others
 * (negotiate, authenticate, parameters, the access rules, preconditions) are checks on values already in memory and
 * get no span: they would only add noise. GraphQL gets a span per operation its resolvers run, since one query can
 * run several.
 */
import type { Span } from '@opentelemetry/api';
import { completeSpanWithError } from './span-errors.js';
import { tracer } from './tracer.js';

/** The stages worth a span. */
export type TracedStage = 'read' | 'deserialize' | 'validate' | 'write' | 'serialize';

/** Ends `span` when `result` settles (at once when it is no promise), and returns `result`. */
function endWhenSettled<R>(span: Span, result: R): R {
  if (!(result instanceof Promise)) {
    span.end();
    return result;
  }
  return result.then(
    (value: unknown) => {
      span.end();
      return value;
    },
    (error: unknown) => {
      completeSpanWithError(span, error);
      throw error;
    },
  ) as R;
}

/** `work()` inside a new active span: its own spans (and SQL statements) become the span's children. */
function runInSpan<R>(name: string, attributes: Record<string, string>, work: () => R): R {
  return tracer.startActiveSpan(name, { attributes }, (span) => {
    let result: R;
    try {
      result = work();
    } catch (error) {
      completeSpanWithError(span, error);
      throw error;
    }
    return endWhenSettled(span, result);
  });
}

/**
 * Runs `stage(context)`, in a span named `<stage> <Resource>` (`read Book`) when `traced` (the request's span
 * records); otherwise just runs it. `traced` is decided once per request, not per stage.
 */
export function runStage<C extends { readonly operation: { readonly resource: string } }, R>(
  traced: boolean,
  name: TracedStage,
  stage: (context: C) => R,
  context: C,
): R {
  if (!traced) return stage(context);
  const { resource } = context.operation;
  return runInSpan(`${name} ${resource}`, { 'resource_api.stage': name, 'resource_api.resource': resource }, () =>
    stage(context),
  );
}

/**
 * Runs one operation of a GraphQL request (`work`) in a span named after it (`api_books_get`), whose children are
 * its stages and statements. Call it only while tracing (`isTracing()`).
 */
export function runInOperationSpan<R>(
  operation: { readonly name: string; readonly resource: string },
  work: () => R,
): R {
  return runInSpan(
    operation.name,
    { 'resource_api.operation': operation.name, 'resource_api.resource': operation.resource },
    work,
  );
}
