/**
 * The update bus over Redis pub/sub (`mercure.redis`), for instances that cannot hand each other their updates through
 * PostgreSQL's `LISTEN/NOTIFY` — behind PgBouncer in transaction mode, several processes on one SQLite file — or that
 * would rather not. A write's messages are their JSON on the app's channel (Redis has no size limit to work around,
 * unlike NOTIFY), on one channel of the app's instances (`redis-channel.ts`).
 *
 * Every instance delivers what its subscription receives, its own updates included, so every subscriber sees one
 * order: Redis's, the order in which the PUBLISH commands reached it. Within one instance that is its commit order
 * (publish-writes sends one update after the other). Across instances it is not quite the database's: two writes
 * committed within a few milliseconds on two instances may reach Redis, and every subscriber, the other way round.
 *
 * What is published while an instance's subscription is down never reaches that instance; an update sent while the
 * publishing connection is down is lost (publish-writes logs it), not queued, so that the updates after it do not wait
 * for Redis. Anything on the channel that is not a message of the bus is logged and ignored.
 */
import type { Redis } from 'ioredis';
import { openRedisChannel } from '../redis-channel.js';
import { readBusMessages } from './bus-message.js';
import type { BusMessage, UpdateBus } from './update-bus.js';

export interface RedisUpdateBusOptions {
  /**
   * A `redis://` URL (both connections are the bus's, closed with it), or an ioredis client of the app's (left open).
   */
  readonly redis: string | Redis;
  /** The channel the app's instances share. */
  readonly channel: string;
  readonly log: { error(object: unknown, message?: string): void; warn(object: unknown, message?: string): void };
}

/** Connects and subscribes (the bus delivers from then on), or, when Redis does not answer, logs it and goes on. */
export async function createRedisUpdateBus(options: RedisUpdateBusOptions): Promise<UpdateBus> {
  const { channel, log } = options;
  let deliver: (message: BusMessage) => void = () => {};
  const link = await openRedisChannel({
    redis: options.redis,
    channel,
    usedFor: 'The Mercure update bus on Redis (mercure.redis)',
    option: 'mercure.redis',
    outage: {
      subscriber: 'mercure: the Redis bus does not answer; no update (of any instance) reaches this one until it does',
      publisher: 'mercure: the Redis bus does not answer; updates sent meanwhile are lost',
    },
    log,
    onMessage(text) {
      let messages: BusMessage[];
      try {
        messages = readBusMessages(text);
      } catch (error) {
        log.warn({ err: error, channel }, 'A message on the Mercure channel is not a message of the bus; ignored.');
        return;
      }
      for (const message of messages)
        try {
          deliver(message);
        } catch (error) {
          log.error({ err: error }, 'A message of the Mercure bus could not be delivered.');
        }
    },
  });
  return {
    async send(messages) {
      // A write with nothing to publish sends nothing: on Redis no place waits for it.
      if (messages.length > 0) await link.publish(JSON.stringify(messages));
    },
    deliverTo(target) {
      deliver = target;
    },
    close: link.close,
  };
}
