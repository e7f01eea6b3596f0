/**
 * The plugin's `mercure` option: which hub the updates go to — the built-in one (the default: no other process), or
 * an external Mercure hub — the built-in hub's keys and limits, and how the built-in hubs of several instances hand
 * each other their updates (PostgreSQL, or Redis). Checked at start-up.
 */
import type { Redis } from 'ioredis';
import { assertCount, DeclarationError } from '../errors.js';
import { type BuiltinHubLimits, DEFAULT_HUB_LIMITS } from './builtin-hub.js';

/** The built-in hub's options, for `resourceApi`'s `mercure` and for the `mercureHub` plugin alone. */
export interface MercureHubOptions {
  /**
   * The secret (HMAC, HS256) of subscribers' and publishers' JWTs: with it the hub delivers private updates to the
   * subscribers its tokens allow, and takes updates from other publishers. Without it, no token is valid.
   */
  readonly jwtSecret?: string;
  /** Subscribers without a JWT may subscribe to public updates (default true). */
  readonly anonymous?: boolean;
  /** The most subscribers at once; more get 503 (default 10,000). */
  readonly maxSubscribers?: number;
  /**
   * The most bytes waiting to be sent to one subscriber; a subscriber that falls further behind is dropped (default 1
   * MiB).
   */
  readonly maxQueuedBytes?: number;
  /** The most updates kept for subscribers resuming with `Last-Event-ID` (default 1,000; 0 keeps none). */
  readonly historySize?: number;
  /** The most bytes of updates kept for them (default 16 MiB). */
  readonly historyBytes?: number;
  /** Milliseconds between heartbeats (comment lines) on each subscription; 0 sends none (default 40,000). */
  readonly heartbeat?: number;
  /**
   * The least milliseconds between two writes to a subscriber's connection: updates published sooner leave together
   * (default 0: each turn of the event loop that published something writes at its end). Worth setting only for very
   * many subscribers (thousands) of frequent updates; with a hundred, a wait measured slower than none
   * (docs/performance.md).
   */
  readonly writeInterval?: number;
}

/** The plugin's `mercure` option: see docs/real-time.md. */
export interface MercureOptions extends MercureHubOptions {
  /**
   * An external Mercure hub's URL, where updates are POSTed (`https://hub.example.com/.well-known/mercure`), with a
   * publisher JWT signed with `jwtSecret`. Absent: the built-in hub, served at `/.well-known/mercure`.
   */
  readonly url?: string;
  /**
   * The hub's URL as subscribers reach it, announced in every response's `Link: <…>; rel="mercure"` (default: `url`;
   * for the built-in hub, `/.well-known/mercure` on the request's origin).
   */
  readonly publicUrl?: string;
  /**
   * On PostgreSQL, the built-in hubs of the app's instances hand each other their updates through the database
   * (`LISTEN/NOTIFY`; through Redis with `redis`), so a subscriber of any instance receives every instance's updates
   * (default true; false: each instance's hub has its own writes only).
   */
  readonly fanOut?: boolean;
  /**
   * The built-in hubs of the app's instances hand each other their updates through Redis pub/sub instead, on any
   * database (SQLite too): a `redis://` URL (its connections are closed with the app) or an ioredis client of yours
   * (used to publish, duplicated to subscribe, and left open). Needs the `ioredis` package.
   */
  readonly redis?: Redis | string;
  /** The Redis channel the app's instances share (default `resource_api_mercure:<databaseSchema or public>`). */
  readonly redisChannel?: string;
}

const KEYS = [
  'url',
  'publicUrl',
  'jwtSecret',
  'anonymous',
  'maxSubscribers',
  'maxQueuedBytes',
  'historySize',
  'historyBytes',
  'heartbeat',
  'writeInterval',
  'fanOut',
  'redis',
  'redisChannel',
];

/** The built-in hub's limits, checked, over the defaults. */
export function resolveHubLimits(options: MercureHubOptions, where: string): BuiltinHubLimits {
  assertCount(`${where}.maxSubscribers`, options.maxSubscribers, 'subscribers');
  for (const key of ['maxQueuedBytes', 'historyBytes'] as const) assertCount(`${where}.${key}`, options[key], 'bytes');
  // These may be 0: no history, no heartbeat, a write every turn.
  for (const [key, unit] of [
    ['historySize', 'updates'],
    ['heartbeat', 'milliseconds'],
    ['writeInterval', 'milliseconds'],
  ] as const) {
    const value = options[key];
    if (value !== undefined && (!Number.isSafeInteger(value) || value < 0))
      throw new DeclarationError(`${where}.${key} must be a whole number of ${unit} from 0 up, got ${String(value)}.`);
  }
  if (options.jwtSecret !== undefined && (typeof options.jwtSecret !== 'string' || options.jwtSecret === ''))
    throw new DeclarationError(`${where}.jwtSecret must be a non-empty string.`);
  return {
    maxSubscribers: options.maxSubscribers ?? DEFAULT_HUB_LIMITS.maxSubscribers,
    maxQueuedBytes: options.maxQueuedBytes ?? DEFAULT_HUB_LIMITS.maxQueuedBytes,
    historySize: options.historySize ?? DEFAULT_HUB_LIMITS.historySize,
    historyBytes: options.historyBytes ?? DEFAULT_HUB_LIMITS.historyBytes,
    heartbeat: options.heartbeat ?? DEFAULT_HUB_LIMITS.heartbeat,
    writeInterval: options.writeInterval ?? DEFAULT_HUB_LIMITS.writeInterval,
  };
}

/** The `mercure` option checked: unknown keys, an external hub without its secret, URLs that are none. */
export function assertMercureOptions(options: MercureOptions): void {
  if (options === null || typeof options !== 'object')
    throw new DeclarationError('resourceApi: "mercure" must be false or an object ({ url, publicUrl, jwtSecret, … }).');
  for (const key of Object.keys(options))
    if (!KEYS.includes(key))
      throw new DeclarationError(`resourceApi: "mercure" has an unknown option "${key}" (known: ${KEYS.join(', ')}).`);
  for (const key of ['url', 'publicUrl'] as const) {
    const value = options[key];
    if (value !== undefined && (typeof value !== 'string' || !/^https?:\/\/[^/]/.test(value)))
      throw new DeclarationError(`resourceApi: "mercure.${key}" must be an http(s) URL, "${String(value)}" given.`);
  }
  if (options.fanOut !== undefined && typeof options.fanOut !== 'boolean')
    throw new DeclarationError('resourceApi: "mercure.fanOut" must be true or false.');
  assertRedisOptions(options);
  if (options.url !== undefined && !options.jwtSecret)
    throw new DeclarationError(
      'resourceApi: "mercure.url" (an external hub) needs "mercure.jwtSecret" to sign updates with.',
    );
  resolveHubLimits(options, 'resourceApi: mercure');
}

/** The Redis bus's options: a URL or a client, and no other choice that leaves the bus unused. */
function assertRedisOptions(options: MercureOptions): void {
  const { redis, redisChannel } = options;
  if (redisChannel !== undefined && (typeof redisChannel !== 'string' || redisChannel === ''))
    throw new DeclarationError('resourceApi: "mercure.redisChannel" must be a non-empty string.');
  if (redis === undefined) {
    if (redisChannel !== undefined)
      throw new DeclarationError(
        'resourceApi: "mercure.redisChannel" names a channel of "mercure.redis", which is not set.',
      );
    return;
  }
  const isClient =
    typeof redis === 'object' &&
    redis !== null &&
    typeof redis.publish === 'function' &&
    typeof redis.duplicate === 'function';
  if (!isClient && (typeof redis !== 'string' || !/^rediss?:\/\/./.test(redis)))
    throw new DeclarationError(
      // The value is not repeated: a URL may hold a password.
      `resourceApi: "mercure.redis" must be a redis:// (or rediss://) URL or an ioredis client, got ${typeof redis === 'string' ? 'a string without either scheme' : redis === null ? 'null' : typeof redis}.`,
    );
  if (options.fanOut === false)
    throw new DeclarationError(
      'resourceApi: "mercure.redis" fans the updates out between instances, which "mercure.fanOut: false" turns off: give one or the other.',
    );
  if (options.url !== undefined)
    throw new DeclarationError(
      'resourceApi: "mercure.redis" fans out the built-in hub\'s updates; with an external hub ("mercure.url") every instance sends to that hub already: leave "redis" out.',
    );
}
