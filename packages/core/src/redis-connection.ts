/**
 * The Redis connections the framework opens itself (the rate limit's store, the Mercure bus): from a `redis://` URL
 * given in an option, or as a second connection beside an ioredis client of the app's (`duplicate()`: a subscribed
 * connection can do nothing else). Either way the connection is the framework's, and the framework closes it; a client
 * the app gives is never closed by it.
 *
 * ioredis is loaded only when a URL is given: an app that never uses Redis does not keep it in memory (its cost:
 * docs/performance.md, "What made it faster"). It is an optional peer dependency: the app installs it.
 */
import type { Redis, RedisOptions } from 'ioredis';
import { importOptionalPackage } from './optional-package.js';

export interface RedisConnectionOptions {
  /** What needs it, as the start-up error for a missing `ioredis` says: `A Redis store for the rate limit`. */
  readonly usedFor: string;
  /** ioredis options, over the URL's (or those of the client duplicated). */
  readonly options: RedisOptions;
  /** Told the first error of each outage: ioredis reports every failed reconnection, the log wants one line. */
  readonly reportOutage: (error: Error) => void;
}

/**
 * A connection of the framework's own, connected before it returns when Redis answers. A Redis that does not answer
 * does not stop the start: ioredis goes on reconnecting, and `status` is not `ready` meanwhile.
 */
export async function openRedisConnection(from: string | Redis, settings: RedisConnectionOptions): Promise<Redis> {
  const options: RedisOptions = { ...settings.options, lazyConnect: true };
  let connection: Redis;
  if (typeof from === 'string') {
    const { Redis } = await importOptionalPackage('ioredis', settings.usedFor, () => import('ioredis'));
    connection = new Redis(from, options);
  } else connection = from.duplicate(options);
  let down = false;
  connection.on('error', (error: Error) => {
    if (!down) settings.reportOutage(error);
    down = true;
  });
  connection.on('ready', () => (down = false));
  // Its failure was reported (the error event); ioredis reconnects on its own.
  await connection.connect().catch(() => {});
  return connection;
}
