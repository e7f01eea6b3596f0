/**
 * One Redis pub/sub channel shared by the instances of an app (the Mercure bus, the HTTP cache's purges): a message
 * is published by one connection and received by another, since a subscribed connection can do nothing else.
 *
 * ioredis reconnects both connections when they break, and subscribes again. What is published while an instance's
 * subscription is down never reaches that instance: `onLink(false)` says so, `onLink(true)` that it is subscribed
 * again. A message published while the publishing connection is down fails at once (no offline queue), so that what
 * follows does not wait for Redis.
 */
import type { Redis } from 'ioredis';
import { openRedisConnection } from './redis-connection.js';

export interface RedisChannelOptions {
  /**
   * A `redis://` URL (both connections are the channel's, closed with it), or an ioredis client of the app's (left
   * open).
   */
  readonly redis: string | Redis;
  readonly channel: string;
  /**
   * What it is for, in the start-up error for a missing `ioredis`: `The Mercure update bus on Redis (mercure.redis)`.
   */
  readonly usedFor: string;
  /** The option that set it, in errors: `mercure.redis`. */
  readonly option: string;
  /** Each message of the channel, in the order Redis delivers them. */
  readonly onMessage: (text: string) => void;
  /** The subscription went down (messages are being missed) or is back (not called at the start). */
  readonly onLink?: (up: boolean) => void;
  /** Told once per outage, as a sentence on what it means: `no update reaches this instance until it does`. */
  readonly outage: { readonly subscriber: string; readonly publisher: string };
  readonly log: { error(object: unknown, message?: string): void };
}

export interface RedisChannel {
  /** Publishes `text`; rejects when Redis is away. */
  publish(text: string): Promise<void>;
  close(): Promise<void>;
}

/** Connects and subscribes (messages arrive from then on), or, when Redis does not answer, logs it and goes on. */
export async function openRedisChannel(options: RedisChannelOptions): Promise<RedisChannel> {
  const { redis, channel, log } = options;
  let closed = false;
  // Commands wait for the connection (offline queue, no retry limit): the subscription is made, and made again after
  // each reconnection (autoResubscribe), however long Redis takes to answer.
  const subscriber = await openRedisConnection(redis, {
    usedFor: options.usedFor,
    options: { enableOfflineQueue: true, maxRetriesPerRequest: null, autoResubscribe: true },
    reportOutage: (error) => log.error({ err: error, channel }, options.outage.subscriber),
  });
  const publisher =
    typeof redis === 'string'
      ? await openRedisConnection(redis, {
          usedFor: options.usedFor,
          options: { enableOfflineQueue: false, maxRetriesPerRequest: 1 },
          reportOutage: (error) => log.error({ err: error, channel }, options.outage.publisher),
        })
      : redis;

  subscriber.on('message', (from: string, text: string) => {
    if (from === channel) options.onMessage(text);
  });
  // Down from the first failure until subscribed again (ioredis resubscribes before it says `ready`).
  let up = subscriber.status === 'ready';
  subscriber.on('close', () => {
    if (!up || closed) return;
    up = false;
    options.onLink?.(false);
  });
  subscriber.on('ready', () => {
    if (up || closed) return;
    up = true;
    options.onLink?.(true);
  });

  // Not subscribed yet (Redis does not answer): messages are being missed from the start.
  if (!up) options.onLink?.(false);

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
    // Redis answers: a refusal (an ACL without SUBSCRIBE) is a start-up error, not a channel that silently delivers
    // nothing.
    try {
      await subscribed;
    } catch (error) {
      await close();
      throw new Error(
        `${options.option}: Redis refused the subscription to "${channel}": ${(error as Error).message}`,
        {
          cause: error,
        },
      );
    }
  } else
    subscribed.catch((error: unknown) => {
      if (!closed) log.error({ err: error, channel }, `${options.option}: could not subscribe to the channel`);
    });

  return {
    async publish(text) {
      await publisher.publish(channel, text);
    },
    close,
  };
}
