/**
 * The tracer of the API's spans, from `@opentelemetry/api`: a no-op until the application installs an SDK (a tracer
 * provider). `trace.getTracer` returns a proxy that follows a provider installed later, so it is taken once, here.
 *
 * The request spans' hooks are added to the API's routes only when an SDK is installed as the plugin starts
 * (`isTracerInstalled`). The spans below the request's (stages, SQL statements) are made only while the current span
 * records: with no SDK, or a request the sampler dropped, each costs one look at the active context and nothing else.
 */
import { createRequire } from 'node:module';
import { ProxyTracerProvider, trace } from '@opentelemetry/api';

const { version } = createRequire(import.meta.url)('../../package.json') as { version: string };

/** `@resource-api/core` at its version: the instrumentation scope of every span the API makes. */
export const tracer = trace.getTracer('@resource-api/core', version);

/** The provider behind the API's proxy while no SDK is installed: the API's no-op one. */
const NO_PROVIDER = new ProxyTracerProvider().getDelegate();

/**
 * Whether the application installed a tracer provider (an SDK): asked once, when the plugin starts, to decide whether
 * the API's routes get their request spans' hooks at all. A provider installed through another copy of the API shows
 * as a proxy of that copy: installed too.
 */
export function isTracerInstalled(): boolean {
  const provider = trace.getTracerProvider();
  return !(provider instanceof ProxyTracerProvider) || provider.getDelegate() !== NO_PROVIDER;
}

/** Whether the active span records: only then are the spans below it worth making. */
export function isTracing(): boolean {
  return trace.getActiveSpan()?.isRecording() === true;
}
