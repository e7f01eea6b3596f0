/**
 * The built-in Mercure hub alone, in a process of its own: for bookshops that send their updates to one hub
 * (`MERCURE_URL`), as they would to the Mercure hub of Caddy. `node dist/mercure-hub.js` (or `pnpm hub`) with
 * `MERCURE_JWT_SECRET` (at least 32 bytes: the bookshops sign their updates with it, and subscribers' tokens are
 * checked with it), `HOST` (default 127.0.0.1) and `PORT` (default 3001). Stops on SIGTERM or SIGINT, ending its
 * subscriptions.
 */
import Fastify from 'fastify';
import { mercureHub } from '@resource-api/core';
import { listenAddress } from './config.js';

async function main(): Promise<void> {
  const jwtSecret = process.env.MERCURE_JWT_SECRET?.trim();
  if (!jwtSecret || Buffer.byteLength(jwtSecret) < 32)
    throw new Error('MERCURE_JWT_SECRET must be set, at least 32 bytes long.');
  const { host, port } = listenAddress({ ...process.env, PORT: process.env.PORT?.trim() || '3001' });
  const app = Fastify({ logger: { level: process.env.LOG_LEVEL?.trim() || 'info' } });
  await app.register(mercureHub, { jwtSecret, heartbeat: 15_000 });
  for (const signal of ['SIGTERM', 'SIGINT'] as const)
    process.once(signal, () => {
      // The subscriptions end at once; a publisher's request in flight has a second to finish, then every connection
      // left (a client reconnecting as the hub closes) is cut.
      const cut = setTimeout(() => app.server.closeAllConnections(), 1_000);
      void app.close().then(() => {
        clearTimeout(cut);
        process.exit(0);
      });
    });
  await app.listen({ host, port });
  console.log(`Mercure hub listening on http://${host}:${port}/.well-known/mercure`);
}

main().catch((error: unknown) => {
  console.error('The Mercure hub could not start:', error instanceof Error ? error.message : error);
  process.exit(1);
});
