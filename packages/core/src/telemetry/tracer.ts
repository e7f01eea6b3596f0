/**
 * The tracer of the API's spans, from `@opentelemetry/api`: a no-op until the application installs an SDK (a tracer
 * provider). `trace.getTracer` returns a proxy that follows a provider installed later, so it is taken once, here.
 *
 * The spans below the request's (stages, SQL statements) are made only while the current span records: with no SDK,
 * or a request the sampler dropped, each costs one look at the active context and nothing else.
 */
import { createRequire } from 'node:module';
import { trace } from '@opentelemetry/api';

const { version } = createRequire(import.meta.url)('../../package.json') as { version: string };

/** `@resource-api/core` at its version: the instrumentation scope of every span the API makes. */
export const tracer = trace.getTracer('@resource-api/core', version);

/** Whether the active span records: only then are the spans below it worth making. */
export function isTracing(): boolean {
  return trace.getActiveSpan()?.isRecording() === true;
}
