/**
 * Telemetry of the API, set up once by the plugin: SQL statements run by knex's runner traced (`sql-spans.ts`) when an
 * OpenTelemetry SDK is installed as it starts, the metrics made and served when they are on (`metrics.ts`), and
 * `attachToRoutes`, which the API's route contexts call (REST's and GraphQL's) so that each route they register gets
 * its request span and metrics (`route-telemetry.ts`).
 */
import type { FastifyInstance, RouteOptions } from 'fastify';
import type { Knex } from 'knex';
import { type CacheFigures, createRequestMetrics, loadPromClient, type PromClient } from './metrics.js';
import type { RouteDescription } from './request-spans.js';
import { attachRouteTelemetry } from './route-telemetry.js';
import { attachStatementTracing, type DatabaseSystem } from './sql-spans.js';
import { isTracerInstalled } from './tracer.js';
import { type ResolvedMetrics, resolveMetrics, type TelemetryOptions } from './telemetry-options.js';

export interface TelemetryTargets {
  readonly knex: Knex;
  readonly system: DatabaseSystem;
}

export interface Telemetry {
  /** Traces (and measures) every route registered from now on in `app`'s context and the contexts inside it. */
  attachToRoutes(app: FastifyInstance): void;
  /** With metrics on, adds the in-process HTTP cache's (its hits, entries and bytes). */
  addCacheMetrics(cache: CacheFigures): void;
}

/**
 * What a route's spans and metrics say of it: the template of its URL, and the operation and resource it serves, as
 * the API marked the route when it defined it (`config.resourceApi`, `routing/api-scope.ts`).
 */
function describeRoute(route: RouteOptions): RouteDescription {
  const template = route.url.replace(/:(\w+)/g, '{$1}') || '/';
  const mark = route.config?.resourceApi;
  return mark?.kind === 'operation'
    ? { route: template, operation: mark.operation, resource: mark.resource }
    : { route: template };
}

/** The `telemetry` option checked, and prom-client loaded when metrics are on: before the plugin opens anything. */
export interface LoadedTelemetry {
  readonly metrics: { readonly settings: ResolvedMetrics; readonly client: PromClient } | null;
}

/**
 * Checks the `telemetry` option and loads what it needs; a DeclarationError names a wrong option or a missing
 * package. Called first, so that a wrong option changes nothing (no database opened, no table created).
 */
export async function loadTelemetry(options: TelemetryOptions | undefined): Promise<LoadedTelemetry> {
  const settings = resolveMetrics(options);
  return { metrics: settings ? { settings, client: await loadPromClient() } : null };
}

/** Sets up the API's telemetry on `app` (the plugin's context): SQL tracing, and the metrics with their route. */
export function registerTelemetry(app: FastifyInstance, loaded: LoadedTelemetry, targets: TelemetryTargets): Telemetry {
  const metrics = loaded.metrics
    ? createRequestMetrics(loaded.metrics.client, loaded.metrics.settings, targets.knex)
    : undefined;
  // Decided once: with no SDK installed now, the routes get no span hooks and knex's runner is not followed (what it
  // runs could have no recording span above it). The direct paths' statements and the stages still ask per request.
  const traced = isTracerInstalled();
  if (traced) {
    const detach = attachStatementTracing(targets.knex, targets.system);
    app.addHook('onClose', async () => detach());
  }
  const path = loaded.metrics?.settings.path;
  if (metrics && path) {
    const { registry } = metrics;
    app.get(path, async (_request, reply) => reply.type(registry.contentType).send(await registry.metrics()));
  }
  return {
    addCacheMetrics: (cache) => metrics?.addCacheMetrics(cache),
    attachToRoutes(context) {
      if (!traced && !metrics) return;
      context.addHook('onRoute', (route) => {
        const description = describeRoute(route);
        attachRouteTelemetry(route, description, { traced, record: metrics?.createRecorder(description) });
      });
    },
  };
}
