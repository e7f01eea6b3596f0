/**
 * A `LISTEN` on one PostgreSQL channel, for the instances of an app that hand each other messages through their
 * database (the Mercure bus, the HTTP cache's purges). The listening connection is its own, outside the pool (a
 * pooled one would be handed to queries), named apart in `pg_stat_activity`, and opened again a second after it
 * breaks. What is notified while it is down never reaches this instance: `onLink(false)` says so, `onLink(true)` says
 * it listens again, so that a user of it can make up for what it missed.
 */
import type { Knex } from 'knex';
import type { Database } from './database.js';

/** Milliseconds before the listening connection is opened again after it broke. */
const RECONNECT_DELAY = 1_000;

/** The listening connection, as pg's client is. */
interface ListeningConnection {
  query(sql: string): Promise<unknown>;
  on(event: 'notification' | 'error' | 'end', listener: (value: never) => void): void;
}

export interface PostgresListenerOptions {
  readonly database: Database;
  readonly channel: string;
  /** Appended to the connection's `application_name`: what it listens for (`mercure`, `cache`). */
  readonly name: string;
  /** Each notification's payload, in the order PostgreSQL delivers them (the order of commits). */
  readonly onNotification: (payload: string | undefined) => void;
  /** The link went down (`false`: notifications are being missed) or is up again (`true`, not called at the start). */
  readonly onLink?: (up: boolean) => void;
  readonly log: { error(object: unknown, message?: string): void };
}

export interface PostgresListener {
  close(): Promise<void>;
}

/** Listens before it returns (a failure to connect then is the start's error). */
export async function openPostgresListener(options: PostgresListenerOptions): Promise<PostgresListener> {
  const { channel, log } = options;
  const client = options.database.knex.client as Knex.Client & {
    acquireRawConnection(): Promise<ListeningConnection>;
    destroyRawConnection(connection: ListeningConnection): Promise<void>;
  };
  let connection: ListeningConnection | undefined;
  let closed = false;
  let retry: NodeJS.Timeout | undefined;

  async function listen(): Promise<void> {
    const opened = await client.acquireRawConnection();
    opened.on('notification', (message: { channel: string; payload?: string }) => {
      if (message.channel === channel) options.onNotification(message.payload);
    });
    const broke = (error?: Error): void => {
      // Only the connection listening now: one that broke while it was being set up is `listen`'s failure.
      if (closed || connection !== opened) return;
      connection = undefined;
      log.error(
        { err: error, channel },
        `The ${options.name} listener lost its PostgreSQL connection; listening again in a second.`,
      );
      options.onLink?.(false);
      retry = setTimeout(reopen, RECONNECT_DELAY);
    };
    opened.on('error', broke);
    opened.on('end', broke);
    try {
      await opened.query(`LISTEN "${channel.replace(/"/g, '""')}"`);
      // Named apart from the pool's connections: the pool keeps to its maximum, this one is extra.
      await opened.query(
        `SELECT set_config('application_name', left(current_setting('application_name') || ' ${options.name.replace(/'/g, '')}', 63), false)`,
      );
    } catch (error) {
      await client.destroyRawConnection(opened).catch(() => undefined);
      throw error;
    }
    connection = opened;
  }

  function reopen(): void {
    retry = undefined;
    if (closed) return;
    listen().then(
      () => options.onLink?.(true),
      (error: unknown) => {
        log.error(
          { err: error, channel },
          `The ${options.name} listener could not reconnect; trying again in a second.`,
        );
        retry = setTimeout(reopen, RECONNECT_DELAY);
      },
    );
  }

  await listen();
  return {
    async close() {
      closed = true;
      if (retry) clearTimeout(retry);
      const open = connection;
      connection = undefined;
      if (open) await client.destroyRawConnection(open).catch(() => undefined);
    },
  };
}
