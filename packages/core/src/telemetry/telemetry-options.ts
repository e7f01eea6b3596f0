/**
 * The plugin's `telemetry` option, and its checks at start-up. Tracing needs no option: the spans are made through
 * `@opentelemetry/api` and record once the application installs an SDK. Metrics are off unless asked for.
 */
import type { Registry } from 'prom-client';
import { DeclarationError } from '../errors.js';
import { formatDidYouMean } from '../metadata/did-you-mean.js';

/** The plugin's `telemetry`: `{ metrics: true }` serves Prometheus metrics at `/metrics`. See docs/telemetry.md. */
export interface TelemetryOptions {
  /**
   * Prometheus metrics of the API's requests and of the database pool, through `prom-client` (an optional peer
   * dependency: add it to your app). Off by default; `true` for the defaults, or `MetricsOptions`.
   */
  readonly metrics?: boolean | MetricsOptions;
}

/** The metrics: where they are served, into which registry, and what else they hold. */
export interface MetricsOptions {
  /**
   * The route that serves them in Prometheus's text format (default `/metrics`, outside the API's prefix); `false` for
   * none: serve `registry` yourself (on a port of its own, behind your own access rule).
   */
  readonly path?: string | false;
  /**
   * A prom-client `Registry` to add the metrics to (default: one of the plugin's own, never prom-client's global one).
   */
  readonly registry?: Registry;
  /**
   * prom-client's default metrics of the process (CPU, memory, event loop delay, garbage collection), default true;
   * left out anyway when the registry already has them.
   */
  readonly processMetrics?: boolean;
  /** The request duration histogram's buckets, in seconds, increasing (default from 1 ms to 10 s). */
  readonly durationBuckets?: readonly number[];
}

/** The metrics settings with their defaults, or null when metrics are off. */
export interface ResolvedMetrics {
  readonly path: string | false;
  readonly registry: Registry | undefined;
  readonly processMetrics: boolean;
  readonly durationBuckets: readonly number[];
}

export const DEFAULT_DURATION_BUCKETS: readonly number[] = [
  0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
];

const TELEMETRY_KEYS = ['metrics'];
const METRICS_KEYS = ['path', 'registry', 'processMetrics', 'durationBuckets'];

function assertKnownKeys(where: string, value: object, known: readonly string[]): void {
  for (const key of Object.keys(value)) {
    if (!known.includes(key))
      throw new DeclarationError(`${where}: unknown option "${key}".${formatDidYouMean(key, known)}`);
  }
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function assertBuckets(buckets: unknown): asserts buckets is readonly number[] {
  const valid =
    Array.isArray(buckets) &&
    buckets.length > 0 &&
    buckets.every(
      (bucket, index) =>
        typeof bucket === 'number' &&
        Number.isFinite(bucket) &&
        bucket > 0 &&
        (index === 0 || bucket > buckets[index - 1]),
    );
  if (!valid)
    throw new DeclarationError(
      'telemetry.metrics.durationBuckets must be a non-empty list of increasing positive numbers of seconds.',
    );
}

/** Checks the `telemetry` option and fills in the defaults; a DeclarationError names what is wrong. */
export function resolveMetrics(options: TelemetryOptions | undefined): ResolvedMetrics | null {
  if (options === undefined) return null;
  if (!isObject(options)) throw new DeclarationError('telemetry must be an object: { metrics }.');
  assertKnownKeys('telemetry', options, TELEMETRY_KEYS);
  const { metrics } = options;
  if (metrics === undefined || metrics === false) return null;
  if (metrics !== true && !isObject(metrics))
    throw new DeclarationError('telemetry.metrics must be true, false or an object: { path, registry, … }.');
  const settings: MetricsOptions = metrics === true ? {} : metrics;
  assertKnownKeys('telemetry.metrics', settings, METRICS_KEYS);
  const path = settings.path ?? '/metrics';
  if (path !== false && (typeof path !== 'string' || !/^\/[^\s?#]*$/.test(path)))
    throw new DeclarationError(
      `telemetry.metrics.path must be a path starting with "/" (or false for no route), got ${JSON.stringify(path)}.`,
    );
  const registry = settings.registry;
  if (registry !== undefined && typeof (registry as { registerMetric?: unknown }).registerMetric !== 'function')
    throw new DeclarationError('telemetry.metrics.registry must be a prom-client Registry.');
  const processMetrics = settings.processMetrics ?? true;
  if (typeof processMetrics !== 'boolean')
    throw new DeclarationError('telemetry.metrics.processMetrics must be true or false.');
  const durationBuckets = settings.durationBuckets ?? DEFAULT_DURATION_BUCKETS;
  assertBuckets(durationBuckets);
  return { path, registry, processMetrics, durationBuckets };
}
