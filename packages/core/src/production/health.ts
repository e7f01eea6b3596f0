/**
 * Health routes for load balancers and orchestrators, outside the API prefix: `GET /health` (liveness: the process
 * answers, nothing else is checked, so a slow database never gets a healthy process restarted) and `GET /health/ready`
 * (readiness: the database answers `select 1` within a short timeout, else a 503 problem, so traffic goes elsewhere).
 * Neither is rate limited; their request logs are kept at `warn` so probes do not flood the log.
 */
import type { FastifyInstance, LogLevel } from 'fastify';
import { ApiError } from '../errors.js';
import { renderError } from '../response/render-error.js';
import type { Database } from '../state/database.js';

/** The plugin's `health`: the liveness and readiness routes. */
export interface HealthOptions {
  /** The liveness route (default `/health`). */
  readonly path?: string;
  /** The readiness route (default `/health/ready`). */
  readonly readyPath?: string;
  /** How long readiness waits for the database, in milliseconds (default 2000). */
  readonly timeout?: number;
  /** The log level of the probes' own request logs (default `warn`: successful probes are not logged). */
  readonly logLevel?: LogLevel;
}

/** Settles with `promise`, or rejects once `ms` have passed; the timer never keeps the process alive. */
async function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    timer.unref();
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * `api` gives the API's database and prefix when a probe comes: the production plugin, which defines these routes,
 * is registered before the API. Without the API, readiness has no database to ask and answers as liveness does.
 */
export function registerHealthRoutes(
  app: FastifyInstance,
  options: { api: () => { database: Database; prefix: string } | undefined; health: HealthOptions },
): void {
  const { health } = options;
  const timeout = health.timeout ?? 2000;
  const routeOptions = { logLevel: health.logLevel ?? 'warn', config: { rateLimit: false } } as const;

  // A probe's answer is about now: no cache may keep it.
  app.get(health.path ?? '/health', routeOptions, async (_request, reply) =>
    reply.header('cache-control', 'no-store').send({ status: 'ok' }),
  );

  app.get(health.readyPath ?? '/health/ready', routeOptions, async (request, reply) => {
    const api = options.api();
    try {
      if (api) await withTimeout(api.database.knex.raw('select 1'), timeout);
      return reply.header('cache-control', 'no-store').send({ status: 'ok' });
    } catch (error) {
      // The cause names hosts and ports: logged for the operator, never sent to the prober.
      request.log.warn({ err: error }, 'readiness check failed: the database does not answer');
      const rendered = renderError(new ApiError('NOT_READY', 'The database does not answer.'), {
        accept: request.headers.accept,
        prefix: api?.prefix ?? '/api',
      });
      return reply
        .code(rendered.status)
        .headers({ ...rendered.headers, 'cache-control': 'no-store' })
        .send(rendered.body);
    }
  });
}
