/**
 * Starts the bookshop API server with the settings of `config.ts` (every variable is checked first: a bad one stops
 * the start with a message naming it). Logs JSON lines with pino, each with the request's id. On SIGTERM or SIGINT
 * (close-with-grace) it stops accepting connections, lets the requests in flight finish, closes the database pool and
 * exits 0; after `SHUTDOWN_TIMEOUT` seconds, or on a second signal, it exits 1.
 *
 * With `WEB_CONCURRENCY` above 1 (or `auto`: one per core) this process becomes a cluster primary that keeps that
 * many worker processes running the server on the same port (`cluster.ts`); each worker runs `serve` below.
 */
import cluster from 'node:cluster';
import closeWithGrace from 'close-with-grace';
import { pino } from 'pino';
import { buildBookshop } from './app.js';
import { isShutdownMessage, runPrimary } from './cluster.js';
import { ConfigError, loadConfig, rateLimitOptions, redact, type ServerConfig } from './config.js';

async function main(): Promise<void> {
  // Checked (and the development JWT secret written) once, in the primary too, before any worker starts.
  const config = loadConfig();
  if (config.workers > 1 && cluster.isPrimary) {
    // Synchronous writes: the primary's last lines come right before process.exit.
    const log = pino({ level: config.logLevel }, pino.destination({ sync: true }));
    if (config.rateLimit && !config.rateLimit.redis)
      log.warn(
        { workers: config.workers },
        'rate limits are counted by each worker on its own: set REDIS_URL to share one count',
      );
    // On PostgreSQL the workers' hubs hand each other their updates through the database; on SQLite only Redis does.
    if (!config.mercure.url && !config.mercure.redis && !config.database.startsWith('postgres'))
      log.warn(
        { workers: config.workers },
        'real-time updates reach the subscribers of the worker that wrote them only: set MERCURE_REDIS_URL to share them',
      );
    runPrimary({ workers: config.workers, shutdownTimeout: config.shutdownTimeout, log });
    return;
  }
  await serve(config);
}

async function serve(config: ServerConfig): Promise<void> {
  const app = await buildBookshop({
    database: config.database,
    databasePoolMax: config.databasePoolMax,
    logger: true,
    logLevel: config.logLevel,
    jwtSecret: config.jwtSecret,
    jwtTtl: config.jwtTtl,
    jwtRefreshTtl: config.jwtRefreshTtl,
    ...(config.admin ? { admin: config.admin } : {}),
    requestTimeout: config.requestTimeout,
    trustProxy: config.trustProxy,
    ...(config.trustedHosts ? { trustedHosts: config.trustedHosts } : {}),
    cors: config.corsOrigins ? { origin: config.corsOrigins.includes('*') ? '*' : [...config.corsOrigins] } : false,
    rateLimit: rateLimitOptions(config.rateLimit),
    mercure: config.mercure,
    httpCache: config.httpCache,
    httpCachePurge: config.httpCachePurge,
  });

  // In a cluster worker, the primary asks for the shutdown with a message carrying the signal it received.
  let forwarded: string | undefined;
  let closing = false;
  const grace = closeWithGrace({ delay: config.shutdownTimeout, logger: app.log }, async ({ signal, err }) => {
    closing = true;
    if (err) app.log.error({ err }, 'closing the server after an unexpected error');
    else app.log.info({ signal: signal ?? forwarded }, 'closing the server');
    await app.close();
    app.log.info('the server is closed');
  });
  if (cluster.isWorker) {
    const shutDown = (reason: string) => {
      if (closing) return;
      forwarded = reason;
      void grace.close();
    };
    process.on('message', (message) => isShutdownMessage(message) && shutDown(message.signal));
    // A primary that is killed takes its workers with it: Node's cluster exits a worker whose IPC channel closes.
  }

  const { host, port } = config;
  await app.listen({ host, port });
  const shown = host.includes(':') ? `[${host}]` : host;
  const worker = cluster.isWorker ? `, worker process ${process.pid}` : '';
  console.log(`Bookshop API listening on http://${shown}:${port}/api (database: ${redact(config.database)}${worker})`);
}

main().catch((error: unknown) => {
  console.error('The bookshop could not start:', error instanceof ConfigError ? error.message : error);
  process.exit(1);
});
