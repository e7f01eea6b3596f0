/**
 * How a span ends when its work throws. An error the client caused (an `ApiError` with a status under 500: a 404, a
 * 400 with its violations) is an answer, not a failure of the server: the span records it as an event and keeps an
 * unset status, as OpenTelemetry's HTTP conventions treat 4xx on the server. Anything else marks the span as failed.
 */
import { type Span, SpanStatusCode } from '@opentelemetry/api';

/** Whether `error` carries a status under 500 (the client's doing). */
const isClientError = (error: unknown): boolean => {
  const status = (error as { status?: unknown } | null)?.status;
  return typeof status === 'number' && status < 500;
};

/** Records `error` on `span` (and marks the span failed unless the client caused it), then ends it. */
export function completeSpanWithError(span: Span, error: unknown): void {
  if (error instanceof Error) span.recordException(error);
  if (!isClientError(error)) {
    span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
    span.setAttribute('error.type', error instanceof Error ? error.name : 'unknown');
  }
  span.end();
}
