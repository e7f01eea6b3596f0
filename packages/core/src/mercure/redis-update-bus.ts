/**
 * The update bus over Redis pub/sub (`mercure.redis`), for instances that cannot hand each other their updates through
 * PostgreSQL's `LISTEN/NOTIFY` — behind PgBouncer in transaction mode, several processes on one SQLite file — or that
 * would rather not. A message is its JSON on the app's channel (Redis has no size limit to work around, unlike NOTIFY),
 * published by one connection and received by another: a subscribed connection can do nothing else.
 *
 * Every instance delivers what its subscription receives, its own updates included, so every subscriber sees one
 * order: Redis's, the order in which the PUBLISH commands reached it. Within one instance that is its commit order
 * (publish-writes sends one update after the other). Across instances it is not quite the database's: two writes
 * committed within a few milliseconds on two instances may reach Redis, and every subscriber, the other way round.
 *
 * ioredis reconnects both connections when they break, and subscribes again. What is published while an instance's
 * subscription is down never reaches that instance; an update sent while the publishing connection is down is lost
 * (publish-writes logs it), not queued, so that the updates after it do not wait for Redis. Anything on the channel
 * that is not a message of the bus is logged and ignored.
 */
import type { Redis } from 'ioredis';
import { openRedisConnection } from '../redis-connection.js';
import { readBusMessages } from './bus-message.js';
import type { BusMessage, UpdateBus } from './update-bus.js';

export interface RedisUpdateBusOptions {
  /** A `redis://` URL (both connections are the bus's, closed with it), or an ioredis client of the app's (left open). */
  readonly redis: string | Redis;
  /** The channel the app's instances share. */
  readonly channel: string;
  readonly log: { error(object: unknown, message?: string): void; warn(object: unknown, message?: string): void };
}

const USED_FOR = 'The Mercure update bus on Redis (mercure.redis)';

/** Connects and subscribes (the bus delivers from then on), or, when Redis does not answer, logs it and goes on. */
export async function createRedisUpdateBus(options: RedisUpdateBusOptions): Promise<UpdateBus> {
  const { redis, channel, log } = options;
  let deliver: (message: BusMessage) => void = () => {};
  let closed = false;

  // Commands wait for the connection (offline queue, no retry limit): the subscription is made, and made again after
  // each reconnection (autoResubscribe), however long Redis takes to answer.
  const subscriber = await openRedisConnection(redis, {
    usedFor: USED_FOR,
    options: { enableOfflineQueue: true, maxRetriesPerRequest: null, autoResubscribe: true },
    reportOutage: (error) =>
      log.error(
        { err: error, channel },
        'mercure: the Redis bus does not answer; no update (of any instance) reaches this one until it does',
      ),
  });
  // No offline queue: while Redis is away an update fails at once (logged), rather than holding up those after it.
  const publisher =
    typeof redis === 'string'
      ? await openRedisConnection(redis, {
          usedFor: USED_FOR,
          options: { enableOfflineQueue: false, maxRetriesPerRequest: 1 },
          reportOutage: (error) =>
            log.error(
              { err: error, channel },
              'mercure: the Redis bus does not answer; updates sent meanwhile are lost',
            ),
        })
      : redis;

  subscriber.on('message', (from: string, text: string) => {
    if (from !== channel) return;
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
  });

  const close = async (): Promise<void> => {
    closed = true;
    await Promise.all(
      [subscriber, ...(publisher === redis ? [] : [publisher])].map((connection) =>
        // QUIT lets the replies under way arrive; a connection that is down has nothing under way.
        connection.status === 'ready'
          ? connection.quit().catch(() => connection.disconnect())
          : connection.disconnect(),
      ),
    );
  };

  const subscribed = subscriber.subscribe(channel);
  if (subscriber.status === 'ready') {
    // Redis answers: a refusal (an ACL without SUBSCRIBE) is a start-up error, not a bus that silently delivers nothing.
    try {
      await subscribed;
    } catch (error) {
      await close();
      throw new Error(`mercure.redis: Redis refused the subscription to "${channel}": ${(error as Error).message}`, {
        cause: error,
      });
    }
  } else
    subscribed.catch((error: unknown) => {
      if (!closed) log.error({ err: error, channel }, 'mercure: the Redis bus could not subscribe to its channel');
    });

  return {
    async send(messages) {
      // A write with nothing to publish sends nothing: on Redis no place waits for it.
      if (messages.length > 0) await publisher.publish(channel, JSON.stringify(messages));
    },
    deliverTo(target) {
      deliver = target;
    },
    close,
  };
}
