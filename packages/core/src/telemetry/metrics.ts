/**
 * The Prometheus metrics, made with prom-client (loaded only when metrics are on: an optional peer dependency):
 *
 * - `resource_api_http_requests_total` (counter) and `resource_api_http_request_duration_seconds` (histogram), by
 *   `method`, `route` (the template, `/api/books/{id}`), `operation` (`api_books_get`; empty for the API's other
 *   routes: documents, OPTIONS, GraphQL) and `status_code`;
 * - `resource_api_http_request_errors_total` (counter): the answers with a status from 400 up, by `method`, `route`,
 *   `operation` and `status_class` (`4xx`, `5xx`);
 * - `resource_api_db_client_connections` (gauge, by `state`: `used`, `idle`),
 *   `resource_api_db_client_connections_max` and `resource_api_db_client_connections_pending_requests`: knex's pool,
 *   read when Prometheus scrapes, never per request;
 * - with the in-process HTTP cache, `resource_api_http_cache_hits_total` (counter: the responses it answered, before
 *   the app or in the route; a hit answered before the app is in no other metric), `resource_api_http_cache_entries`
 *   and `resource_api_http_cache_bytes` (gauges), read when Prometheus scrapes;
 * - prom-client's default process metrics, unless turned off.
 *
 * Labels are bounded: a route is a template of the API, never a URL, and a method one the route accepts.
 */
import type { Counter, Histogram, Registry } from 'prom-client';
import type { Knex } from 'knex';
import { importOptionalPackage } from '../optional-package.js';
import type { RouteDescription } from './request-spans.js';
import type { ResolvedMetrics } from './telemetry-options.js';

/** Records one answered request of a route: its method, status and duration in milliseconds. */
export type RecordRequest = (method: string, status: number, milliseconds: number) => void;

/** What the metrics read of the in-process HTTP cache at each scrape (`http-cache/memory-store.ts`). */
export interface CacheFigures {
  readonly hits: number;
  readonly size: { readonly bytes: number; readonly entries: number };
}

export interface RequestMetrics {
  readonly registry: Registry;
  /** Adds the in-process HTTP cache's metrics, read from `cache` at each scrape. */
  addCacheMetrics(cache: CacheFigures): void;
  /** The recorder of one route's requests (it keeps the label sets it has seen: no new objects per request). */
  createRecorder(description: RouteDescription): RecordRequest;
}

/** The part of knex's (tarn's) pool read here; absent once the pool is destroyed. */
interface Pool {
  readonly max: number;
  numUsed(): number;
  numFree(): number;
  numPendingAcquires(): number;
}

/** prom-client, or the error that says to install it. */
export function loadPromClient(load = () => import('prom-client')): Promise<PromClient> {
  return importOptionalPackage('prom-client', 'telemetry.metrics', load);
}

/** prom-client's module. */
export type PromClient = typeof import('prom-client');

/** The metrics in `settings.registry` (or a new one), with gauges of `knex`'s pool. */
export function createRequestMetrics(client: PromClient, settings: ResolvedMetrics, knex: Knex): RequestMetrics {
  const registry = settings.registry ?? new client.Registry();
  const registers = [registry];
  const requestLabels = ['method', 'route', 'operation', 'status_code'] as const;
  const requests: Counter<(typeof requestLabels)[number]> = new client.Counter({
    name: 'resource_api_http_requests_total',
    help: 'Requests answered by the API, by method, route, operation and status code.',
    labelNames: requestLabels,
    registers,
  });
  const durations: Histogram<(typeof requestLabels)[number]> = new client.Histogram({
    name: 'resource_api_http_request_duration_seconds',
    help: 'Time from the request reaching an API route to its response being sent, in seconds.',
    labelNames: requestLabels,
    buckets: [...settings.durationBuckets],
    registers,
  });
  const errors = new client.Counter({
    name: 'resource_api_http_request_errors_total',
    help: 'Requests the API answered with a status from 400 up, by method, route, operation and status class.',
    labelNames: ['method', 'route', 'operation', 'status_class'] as const,
    registers,
  });
  const pool = (): Pool | undefined => (knex.client as { pool?: Pool }).pool;
  new client.Gauge({
    name: 'resource_api_db_client_connections',
    help: 'Connections of the database pool, by state: used (acquired) or idle.',
    labelNames: ['state'] as const,
    registers,
    collect() {
      this.set({ state: 'used' }, pool()?.numUsed() ?? 0);
      this.set({ state: 'idle' }, pool()?.numFree() ?? 0);
    },
  });
  new client.Gauge({
    name: 'resource_api_db_client_connections_max',
    help: 'The most connections the database pool opens.',
    registers,
    collect() {
      this.set(pool()?.max ?? 0);
    },
  });
  new client.Gauge({
    name: 'resource_api_db_client_connections_pending_requests',
    help: 'Queries waiting for a connection of the database pool.',
    registers,
    collect() {
      this.set(pool()?.numPendingAcquires() ?? 0);
    },
  });
  if (settings.processMetrics && registry.getSingleMetric('process_cpu_user_seconds_total') === undefined)
    client.collectDefaultMetrics({ register: registry });

  return {
    registry,
    addCacheMetrics(cache) {
      new client.Counter({
        name: 'resource_api_http_cache_hits_total',
        help: 'Responses the in-process HTTP cache answered (before the app, or in the route).',
        registers,
        collect() {
          this.reset();
          this.inc(cache.hits);
        },
      });
      new client.Gauge({
        name: 'resource_api_http_cache_entries',
        help: 'Responses kept by the in-process HTTP cache.',
        registers,
        collect() {
          this.set(cache.size.entries);
        },
      });
      new client.Gauge({
        name: 'resource_api_http_cache_bytes',
        help: 'Bytes of the responses kept by the in-process HTTP cache (bodies and headers).',
        registers,
        collect() {
          this.set(cache.size.bytes);
        },
      });
    },
    createRecorder(description) {
      const route = description.route;
      const operation = description.operation ?? '';
      /** The label sets seen, per method and status: one object each, made once. */
      type LabelSets = { readonly request: Record<string, string>; readonly error: Record<string, string> | undefined };
      const seen = new Map<string, LabelSets>();
      return (method, status, milliseconds) => {
        const key = `${method} ${status}`;
        let labels = seen.get(key);
        if (labels === undefined) {
          labels = {
            request: { method, route, operation, status_code: String(status) },
            error:
              status >= 400 ? { method, route, operation, status_class: `${Math.floor(status / 100)}xx` } : undefined,
          };
          seen.set(key, labels);
        }
        requests.inc(labels.request);
        durations.observe(labels.request, milliseconds / 1000);
        if (labels.error) errors.inc(labels.error);
      };
    },
  };
}
