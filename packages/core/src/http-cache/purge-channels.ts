/**
 * The channels the instances of an app send each other their cache purges on (`instance-purges.ts`): PostgreSQL's
 * `LISTEN/NOTIFY` on the app's database (nothing else to run), or Redis pub/sub (`httpCache.redis`). One channel per
 * schema by default, as the Mercure bus's, named apart from it.
 */
import type { Redis } from 'ioredis';
import { openRedisChannel } from '../redis-channel.js';
import type { Database } from '../state/database.js';
import { openPostgresListener } from '../state/postgres-listener.js';
import type { OpenPurgeChannel } from './instance-purges.js';

interface Log {
  error(object: unknown, message?: string): void;
}

/** The default channel of an app's purges: one per schema, within PostgreSQL's 63 bytes. */
export const toPurgeChannel = (schema: string | undefined): string =>
  `resource_api_cache:${schema ?? 'public'}`.slice(0, 63);

/** The purges on PostgreSQL: sent with `pg_notify` through the pool, received on a listening connection of its own. */
export function toPostgresPurgeChannel(database: Database, channel: string, log: Log): OpenPurgeChannel {
  return async (receive) => {
    const listener = await openPostgresListener({
      database,
      channel,
      name: 'cache',
      onNotification: (payload) => {
        if (payload !== undefined) receive.message(payload);
      },
      onLink: receive.link,
      log: {
        error: (object, message) =>
          log.error(object, `${message ?? ''} The in-process cache is emptied and unused until then.`),
      },
    });
    return {
      // PostgreSQL takes up to 7,999 bytes in a notification.
      maxBytes: 7_900,
      async send(text) {
        await database.knex.raw('select pg_notify(?, ?)', [channel, text]);
      },
      close: listener.close,
    };
  };
}

/** The purges on Redis pub/sub. */
export function toRedisPurgeChannel(redis: string | Redis, channel: string, log: Log): OpenPurgeChannel {
  return async (receive) => {
    const link = await openRedisChannel({
      redis,
      channel,
      usedFor: 'The HTTP cache purges on Redis (httpCache.redis)',
      option: 'httpCache.redis',
      outage: {
        subscriber:
          'httpCache: Redis does not answer; the in-process cache is emptied and unused until it does (purges of other instances are being missed)',
        publisher: 'httpCache: Redis does not answer; purges cannot reach the other instances',
      },
      log,
      onMessage: receive.message,
      onLink: receive.link,
    });
    return { maxBytes: 64 * 1024 * 1024, send: link.publish, close: link.close };
  };
}
