/**
 * Starts the bookshop API server with the settings of `config.ts` (every variable is checked first: a bad one stops
 * the start with a message naming it). Logs JSON lines with pino, each with the request's id. On SIGTERM or SIGINT
 * (close-with-grace) it stops accepting connections, lets the requests in flight finish, closes the database pool and
 * exits 0; after `SHUTDOWN_TIMEOUT` seconds, or on a second signal, it exits 1.
 */
import closeWithGrace from 'close-with-grace';
import { buildBookshop } from './app.js';
import { ConfigError, loadConfig, redact } from './config.js';

async function main(): Promise<void> {
  const config = loadConfig();
  const app = await buildBookshop({
    database: config.database,
    logger: true,
    logLevel: config.logLevel,
    jwtSecret: config.jwtSecret,
    jwtTtl: config.jwtTtl,
    ...(config.admin ? { admin: config.admin } : {}),
    requestTimeout: config.requestTimeout,
    trustProxy: config.trustProxy,
    cors: config.corsOrigins ? { origin: config.corsOrigins.includes('*') ? '*' : [...config.corsOrigins] } : false,
    rateLimit: config.rateLimit && {
      max: config.rateLimit.max,
      timeWindow: config.rateLimit.timeWindow,
      ...(config.rateLimit.redis ? { redis: config.rateLimit.redis } : {}),
      routes: { login: { max: config.rateLimit.loginMax, timeWindow: config.rateLimit.timeWindow } },
    },
  });

  closeWithGrace({ delay: config.shutdownTimeout, logger: app.log }, async ({ signal, err }) => {
    if (err) app.log.error({ err }, 'closing the server after an unexpected error');
    else app.log.info({ signal }, 'closing the server');
    await app.close();
    app.log.info('the server is closed');
  });

  const { host, port } = config;
  await app.listen({ host, port });
  const shown = host.includes(':') ? `[${host}]` : host;
  console.log(`Bookshop API listening on http://${shown}:${port}/api (database: ${redact(config.database)})`);
}

main().catch((error: unknown) => {
  console.error('The bookshop could not start:', error instanceof ConfigError ? error.message : error);
  process.exit(1);
});
