/**
 * Starts the bookshop API server: `HOST` (default 127.0.0.1), `PORT` (default 8000), `DATABASE_URL` (default an
 * SQLite file under `examples/bookshop/var/`, created with its schema on first start). Logs with pino; closes
 * gracefully on SIGINT and SIGTERM.
 */
import { buildBookshop } from './app.js';
import { databaseUrl, firstAdmin, jwtSecret, jwtTtl, listenAddress, redact } from './config.js';

async function main(): Promise<void> {
  const { host, port } = listenAddress();
  const database = databaseUrl();
  const admin = firstAdmin();
  const app = await buildBookshop({ database, logger: true, jwtSecret: jwtSecret(), jwtTtl: jwtTtl(), ...(admin ? { admin } : {}) });

  let closing = false;
  const close = (signal: NodeJS.Signals) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'closing the server');
    app.close().then(
      () => process.exit(0),
      (error: unknown) => {
        app.log.error({ err: error }, 'the server did not close cleanly');
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', close);
  process.once('SIGTERM', close);

  await app.listen({ host, port });
  const shown = host.includes(':') ? `[${host}]` : host;
  console.log(`Bookshop API listening on http://${shown}:${port}/api (database: ${redact(database)})`);
}

main().catch((error: unknown) => {
  console.error('The bookshop could not start:', error);
  process.exit(1);
});
