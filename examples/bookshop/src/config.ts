/**
 * Settings read from the environment, shared by the server (`main.ts`) and the demo data command. `loadConfig()` checks
 * every variable the server reads at once, with env-schema (types, ranges, formats) and the contract's own rules
 * (`JWT_SECRET`, `ADMIN_EMAIL` + `ADMIN_PASSWORD`), and throws one `ConfigError` naming each bad variable.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { envSchema } from 'env-schema';
import type { RateLimitOptions } from '@resource-api/core';

/** The default database: an SQLite file under `examples/bookshop/var/`, whatever the working directory. */
export const DEFAULT_DATABASE_URL = `sqlite:${fileURLToPath(new URL('../var/bookshop.db', import.meta.url))}`;

/** The folder of the uploaded images: `examples/bookshop/var/uploads/`, whatever the working directory. */
export const DEFAULT_UPLOADS_DIRECTORY = fileURLToPath(new URL('../var/uploads', import.meta.url));

/**
 * `DATABASE_URL` (`postgres://…`, `mysql://…` or `mariadb://…`, `sqlite:/path/file.db`, `sqlite::memory:`), or the
 * default SQLite file.
 */
export function databaseUrl(env: NodeJS.ProcessEnv = process.env): string {
  const url = env.DATABASE_URL?.trim();
  if (!url) return DEFAULT_DATABASE_URL;
  if (!/^(postgres(ql)?:\/\/|mysql:\/\/|mariadb:\/\/|sqlite:)/.test(url)) {
    throw new Error(
      `DATABASE_URL "${url}" is not supported: use postgres://user@host:5432/db, mysql://user@host:3306/db, sqlite:/path/file.db or sqlite::memory:.`,
    );
  }
  return url;
}

/** `HOST` (default 127.0.0.1) and `PORT` (default 8000). */
export function listenAddress(env: NodeJS.ProcessEnv = process.env): { host: string; port: number } {
  const host = env.HOST?.trim() || '127.0.0.1';
  const raw = env.PORT?.trim() || '8000';
  const port = Number(raw);
  if (!/^[0-9]+$/.test(raw) || port < 1 || port > 65535)
    throw new Error(`PORT "${raw}" must be a number from 1 to 65535.`);
  return { host, port };
}

/** A database URL without its password, for logs. */
export const redact = (url: string): string => url.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@');

/** The default file of the development JWT secret, generated once and kept: `examples/bookshop/var/jwt-secret`. */
export const DEFAULT_SECRET_FILE = fileURLToPath(new URL('../var/jwt-secret', import.meta.url));

/**
 * `JWT_SECRET` (HS256). In production (`NODE_ENV=production`) it is required. In development, when unset, a random one
 * is generated once, kept in `var/jwt-secret` and reused, with a warning.
 */
export function jwtSecret(
  env: NodeJS.ProcessEnv = process.env,
  file = DEFAULT_SECRET_FILE,
  warn: (message: string) => void = console.warn,
): string {
  const problem = jwtSecretProblem(env);
  if (problem) throw new Error(problem);
  const secret = env.JWT_SECRET?.trim();
  if (secret) return secret;
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dirname(file), { recursive: true });
  const generated = randomBytes(48).toString('base64url');
  // Written aside, then linked into place: link fails when the file exists, so processes starting together (cluster
  // workers, two servers on one machine) all end up with the one secret that won, never with one each.
  const aside = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  writeFileSync(aside, generated, { mode: 0o600 });
  try {
    linkSync(aside, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return readFileSync(file, 'utf8').trim();
  } finally {
    unlinkSync(aside);
  }
  warn(`JWT_SECRET is not set: generated a development secret in ${file}. Set JWT_SECRET in production.`);
  return generated;
}

/** What is wrong with `JWT_SECRET`, if anything: too short, or missing in production. Writes nothing. */
function jwtSecretProblem(env: NodeJS.ProcessEnv): string | undefined {
  const secret = env.JWT_SECRET?.trim();
  if (secret) return Buffer.byteLength(secret) < 32 ? 'JWT_SECRET must be at least 32 bytes long.' : undefined;
  return env.NODE_ENV === 'production'
    ? 'JWT_SECRET is required when NODE_ENV=production: the app refuses to start without it.'
    : undefined;
}

/** `JWT_TTL`: token lifetime in seconds (default 3600). */
export function jwtTtl(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.JWT_TTL?.trim() || '3600';
  if (!/^[1-9][0-9]*$/.test(raw)) throw new Error(`JWT_TTL "${raw}" must be a positive number of seconds.`);
  return Number(raw);
}

/**
 * `ADMIN_EMAIL` + `ADMIN_PASSWORD`: the first admin, created at start (or its password updated, when the app created
 * it).
 */
export function firstAdmin(env: NodeJS.ProcessEnv = process.env): { email: string; password: string } | undefined {
  const email = env.ADMIN_EMAIL?.trim();
  const password = env.ADMIN_PASSWORD;
  if (!email && !password) return undefined;
  if (!email || !password) throw new Error('ADMIN_EMAIL and ADMIN_PASSWORD go together.');
  return { email, password };
}

/** The variables the server reads; each `description` completes "<NAME> …" in the message of a bad value. */
const ENV_SCHEMA = {
  type: 'object',
  properties: {
    NODE_ENV: {
      type: 'string',
      enum: ['development', 'production', 'test'],
      default: 'development',
      description: 'must be development, production or test',
    },
    HOST: { type: 'string', default: '127.0.0.1', description: 'must be a host name or an IP address' },
    PORT: {
      type: 'integer',
      minimum: 1,
      maximum: 65535,
      default: 8000,
      description: 'must be a number from 1 to 65535',
    },
    DATABASE_URL: {
      type: 'string',
      pattern: '^(postgres(ql)?://|mysql://|mariadb://|sqlite:)',
      description:
        'must be postgres://user@host:5432/db, mysql://user@host:3306/db, sqlite:/path/file.db or sqlite::memory:',
    },
    DATABASE_POOL_MAX: {
      type: 'integer',
      minimum: 1,
      maximum: 1000,
      default: 10,
      description: 'must be a number of connections from 1 to 1000',
    },
    WEB_CONCURRENCY: {
      type: 'string',
      pattern: '^([1-9][0-9]{0,2}|auto)$',
      default: '1',
      description: 'must be a number of worker processes from 1 to 999, or auto (one per core)',
    },
    JWT_SECRET: { type: 'string', description: 'must be at least 32 bytes long' },
    JWT_TTL: { type: 'integer', minimum: 1, default: 3600, description: 'must be a positive number of seconds' },
    JWT_REFRESH_TTL: {
      type: 'integer',
      minimum: 1,
      default: 2_592_000,
      description: 'must be a positive number of seconds',
    },
    ADMIN_EMAIL: { type: 'string', pattern: '^[^@\\s]+@[^@\\s]+$', description: 'must be an e-mail address' },
    ADMIN_PASSWORD: { type: 'string', description: 'must be a password' },
    LOG_LEVEL: {
      type: 'string',
      enum: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'],
      default: 'info',
      description: 'must be fatal, error, warn, info, debug, trace or silent',
    },
    CORS_ORIGIN: {
      type: 'string',
      pattern: '^(\\*|https?://[^/\\s,]+(\\s*,\\s*https?://[^/\\s,]+)*)$',
      description:
        'must be * or a comma-separated list of origins such as https://admin.example.com (no path, no trailing slash)',
    },
    RATE_LIMIT_MAX: {
      type: 'integer',
      minimum: 0,
      default: 300,
      description: 'must be a number of requests per window (0 turns rate limiting off)',
    },
    RATE_LIMIT_WINDOW: {
      type: 'integer',
      minimum: 1,
      default: 60,
      description: 'must be a positive number of seconds',
    },
    RATE_LIMIT_LOGIN_MAX: {
      type: 'integer',
      minimum: 1,
      default: 10,
      description: 'must be a positive number of login attempts per window',
    },
    REDIS_URL: { type: 'string', pattern: '^rediss?://', description: 'must be a redis:// or rediss:// URL' },
    TRUST_PROXY: { type: 'boolean', default: false, description: 'must be true or false' },
    TRUSTED_HOSTS: {
      type: 'string',
      pattern: '^\\s*[^\\s/:?#@,]+(\\s*,\\s*[^\\s/:?#@,]+)*\\s*$',
      description:
        'must be a comma-separated list of host names such as api.example.com,www.example.com (no scheme, port or path)',
    },
    MERCURE_URL: {
      type: 'string',
      pattern: '^https?://[^/\\s]',
      description: 'must be the http(s) URL of a Mercure hub, such as https://hub.example.com/.well-known/mercure',
    },
    MERCURE_PUBLIC_URL: {
      type: 'string',
      pattern: '^https?://[^/\\s]',
      description: 'must be the http(s) URL subscribers reach the Mercure hub at',
    },
    MERCURE_JWT_SECRET: { type: 'string', description: 'must be at least 32 bytes long' },
    MERCURE_REDIS_URL: { type: 'string', pattern: '^rediss?://', description: 'must be a redis:// or rediss:// URL' },
    HTTP_CACHE: { type: 'string', enum: ['off', 'memory'], default: 'off', description: 'must be off or memory' },
    VARNISH_URL: {
      type: 'string',
      pattern: '^https?://[^/\\s,]+/?(\\s*,\\s*https?://[^/\\s,]+/?)*$',
      description: 'must be the http(s) URL of Varnish (several: comma-separated)',
    },
    REQUEST_TIMEOUT: { type: 'integer', minimum: 1, default: 30, description: 'must be a positive number of seconds' },
    SHUTDOWN_TIMEOUT: { type: 'integer', minimum: 1, default: 10, description: 'must be a positive number of seconds' },
  },
} as const;

type Variable = keyof typeof ENV_SCHEMA.properties;

/** Values never repeated in a message. */
const SECRET: ReadonlySet<string> = new Set(['JWT_SECRET', 'ADMIN_PASSWORD', 'MERCURE_JWT_SECRET']);

/** Everything the server needs, checked. Durations in milliseconds. */
export interface ServerConfig {
  readonly nodeEnv: 'development' | 'production' | 'test';
  readonly host: string;
  readonly port: number;
  readonly database: string;
  /** PostgreSQL: the most connections each server process opens (`DATABASE_POOL_MAX`). */
  readonly databasePoolMax: number;
  /**
   * Server processes (`WEB_CONCURRENCY`; `auto`: one per core); above 1 a primary forks that many workers (cluster.ts).
   */
  readonly workers: number;
  readonly jwtSecret: string;
  readonly jwtTtl: number;
  /** Refresh token lifetime in seconds (`JWT_REFRESH_TTL`, default 2,592,000: 30 days). */
  readonly jwtRefreshTtl: number;
  readonly admin: { readonly email: string; readonly password: string } | undefined;
  readonly logLevel: string;
  /** The origins CORS allows (`['*']` for any), or undefined: no CORS. */
  readonly corsOrigins: readonly string[] | undefined;
  /**
   * Requests per window and client, the login route's own limit, and the Redis store's URL; false: no rate limiting.
   */
  readonly rateLimit:
    | {
        readonly max: number;
        readonly timeWindow: number;
        readonly loginMax: number;
        readonly redis: string | undefined;
      }
    | false;
  readonly trustProxy: boolean;
  /** The host names the API answers for (`TRUSTED_HOSTS`), or undefined: any host. */
  readonly trustedHosts: readonly string[] | undefined;
  readonly requestTimeout: number;
  readonly shutdownTimeout: number;
  /** `HTTP_CACHE=memory`: public reads are kept in the framework's in-process cache, purged by every write. */
  readonly httpCache: 'off' | 'memory';
  /**
   * Who else is purged after each write: the Varnish servers in front (`VARNISH_URL`, by tag with xkey), and the Redis
   * the processes purge each other's in-process caches through (`REDIS_URL`, with `HTTP_CACHE=memory`; without it,
   * PostgreSQL's `LISTEN/NOTIFY`).
   */
  readonly httpCachePurge: { readonly varnish: readonly string[] | undefined; readonly redis: string | undefined };
  /**
   * Real-time updates: the external Mercure hub (`MERCURE_URL`), the URL subscribers reach the hub at
   * (`MERCURE_PUBLIC_URL`), the secret of its JWTs (`MERCURE_JWT_SECRET`), the Redis the built-in hubs of several
   * processes hand each other their updates through (`MERCURE_REDIS_URL`); all unset: the built-in hub, without private
   * updates, fed by the other processes through PostgreSQL only.
   */
  readonly mercure: {
    readonly url?: string;
    readonly publicUrl?: string;
    readonly jwtSecret?: string;
    readonly redis?: string;
  };
}

/** A configuration the server refuses to start with; the message lists every bad variable. */
export class ConfigError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`Invalid configuration:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

interface SchemaError {
  readonly instancePath: string;
  readonly params: { readonly missingProperty?: string };
}

/**
 * Reads and checks the server's environment variables. Empty values count as unset. Throws a `ConfigError` listing
 * every problem; writes the development JWT secret (see `jwtSecret`) only once everything else is valid.
 */
export function loadConfig(
  env: NodeJS.ProcessEnv = process.env,
  options: { secretFile?: string; warn?: (message: string) => void } = {},
): ServerConfig {
  const raw: Record<string, string> = {};
  for (const name of Object.keys(ENV_SCHEMA.properties)) {
    const value = name === 'ADMIN_PASSWORD' ? env[name] : env[name]?.trim();
    if (value) raw[name] = value;
  }

  const problems: string[] = [];
  let values: Record<Variable, unknown> = {} as Record<Variable, unknown>;
  try {
    values = envSchema({ schema: structuredClone(ENV_SCHEMA) as never, data: raw, env: false });
  } catch (error) {
    const errors = ((error as { errors?: SchemaError[] }).errors ?? []).map(
      (e) => (e.instancePath.slice(1) || e.params.missingProperty) as Variable,
    );
    for (const name of new Set(errors)) {
      const got = SECRET.has(name) ? '' : ` (got "${redact(raw[name] ?? '')}")`;
      problems.push(`${name} ${ENV_SCHEMA.properties[name].description}${got}.`);
    }
  }
  // The contract's own rules, on the raw values (they keep their messages).
  const secretProblem = jwtSecretProblem(raw);
  if (secretProblem) problems.push(secretProblem);
  let admin: ServerConfig['admin'];
  try {
    admin = firstAdmin(raw);
  } catch (error) {
    problems.push((error as Error).message);
  }
  // Each process of a cluster opens the database on its own: an in-memory one would be a different database in each.
  if (raw.DATABASE_URL === 'sqlite::memory:' && raw.WEB_CONCURRENCY !== undefined && raw.WEB_CONCURRENCY !== '1') {
    problems.push(
      'WEB_CONCURRENCY above 1 needs a database the processes share: sqlite::memory: would be one database per process.',
    );
  }
  if (raw.MERCURE_JWT_SECRET !== undefined && Buffer.byteLength(raw.MERCURE_JWT_SECRET) < 32)
    problems.push('MERCURE_JWT_SECRET must be at least 32 bytes long.');
  if (raw.MERCURE_URL !== undefined && raw.MERCURE_JWT_SECRET === undefined)
    problems.push(
      'MERCURE_URL (an external Mercure hub) needs MERCURE_JWT_SECRET, the secret its JWTs are signed with.',
    );
  if (raw.MERCURE_URL !== undefined && raw.MERCURE_REDIS_URL !== undefined)
    problems.push(
      'MERCURE_REDIS_URL fans the built-in hub’s updates out between processes: it does not go with MERCURE_URL (an external hub, which every process sends to).',
    );
  // Several processes on SQLite or MariaDB have no LISTEN/NOTIFY to purge each other's in-process caches through, nor
  // to wait for each other's reads before a shared cache is purged: a read from one could show (or leave in Varnish)
  // what another's write changed.
  const keptBy = [
    ...(raw.HTTP_CACHE?.trim() === 'memory' ? ['HTTP_CACHE=memory'] : []),
    ...(raw.VARNISH_URL?.trim() ? ['VARNISH_URL'] : []),
  ];
  if (
    keptBy.length > 0 &&
    raw.WEB_CONCURRENCY !== undefined &&
    raw.WEB_CONCURRENCY.trim() !== '1' &&
    !/^postgres/.test(raw.DATABASE_URL?.trim() ?? '') &&
    !raw.REDIS_URL
  )
    problems.push(
      `${keptBy.join(' and ')} with WEB_CONCURRENCY above 1 on SQLite or MariaDB needs REDIS_URL: the processes tell each other of their writes and reads through it.`,
    );
  if (problems.length > 0) throw new ConfigError([...new Set(problems)]);

  const seconds = (name: Variable) => Number(values[name]) * 1000;
  const max = Number(values.RATE_LIMIT_MAX);
  const cors = values.CORS_ORIGIN as string | undefined;
  return {
    nodeEnv: values.NODE_ENV as ServerConfig['nodeEnv'],
    host: values.HOST as string,
    port: Number(values.PORT),
    database: databaseUrl(raw),
    databasePoolMax: Number(values.DATABASE_POOL_MAX),
    workers: values.WEB_CONCURRENCY === 'auto' ? availableParallelism() : Number(values.WEB_CONCURRENCY),
    jwtSecret: jwtSecret(raw, options.secretFile, options.warn),
    jwtTtl: Number(values.JWT_TTL),
    jwtRefreshTtl: Number(values.JWT_REFRESH_TTL),
    admin,
    logLevel: values.LOG_LEVEL as string,
    corsOrigins: cors === undefined ? undefined : cors.split(',').map((origin) => origin.trim()),
    rateLimit:
      max === 0
        ? false
        : {
            max,
            timeWindow: seconds('RATE_LIMIT_WINDOW'),
            loginMax: Number(values.RATE_LIMIT_LOGIN_MAX),
            redis: values.REDIS_URL as string | undefined,
          },
    trustProxy: values.TRUST_PROXY === true,
    trustedHosts: (values.TRUSTED_HOSTS as string | undefined)?.split(',').map((host) => host.trim()),
    requestTimeout: seconds('REQUEST_TIMEOUT'),
    shutdownTimeout: seconds('SHUTDOWN_TIMEOUT'),
    httpCache: values.HTTP_CACHE === 'memory' ? 'memory' : 'off',
    httpCachePurge: {
      varnish: (values.VARNISH_URL as string | undefined)?.split(',').map((url) => url.trim()),
      redis:
        values.HTTP_CACHE === 'memory' || values.VARNISH_URL !== undefined
          ? (values.REDIS_URL as string | undefined)
          : undefined,
    },
    mercure: {
      ...(raw.MERCURE_URL ? { url: raw.MERCURE_URL } : {}),
      ...(raw.MERCURE_PUBLIC_URL ? { publicUrl: raw.MERCURE_PUBLIC_URL } : {}),
      ...(raw.MERCURE_JWT_SECRET ? { jwtSecret: raw.MERCURE_JWT_SECRET } : {}),
      ...(raw.MERCURE_REDIS_URL ? { redis: raw.MERCURE_REDIS_URL } : {}),
    },
  };
}

/**
 * The plugin's `rateLimit` for the server's settings: `RATE_LIMIT_MAX` requests per client and `RATE_LIMIT_WINDOW`;
 * `POST /api/auth` at most `RATE_LIMIT_LOGIN_MAX` attempts per window per client address and, separately, per e-mail
 * address (the framework counts the login route both ways, never by the token the request carries); in Redis when
 * `REDIS_URL` is set.
 */
export function rateLimitOptions(rateLimit: ServerConfig['rateLimit']): RateLimitOptions | false {
  if (!rateLimit) return false;
  return {
    max: rateLimit.max,
    timeWindow: rateLimit.timeWindow,
    ...(rateLimit.redis ? { redis: rateLimit.redis } : {}),
    routes: { login: { max: rateLimit.loginMax, timeWindow: rateLimit.timeWindow } },
  };
}
