/**
 * The bookshop application: a Fastify instance with the `production` plugin (CORS, security headers, rate limits,
 * health routes, request ids), then the `resourceApi` plugin with the bookshop's resources and its security (JWT
 * login on `POST /api/auth`, the user resource, roles). Every route comes from the framework; this file only wires
 * it, and creates the first admin when asked.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import {
  AccountNotProvisionedError,
  createLocalStorage,
  createVarnishPurger,
  type CorsOptions,
  genRequestId,
  production,
  type RateLimitOptions,
  type ResourceInput,
  resourceApi,
} from '@resource-api/core';
import { DEFAULT_UPLOADS_DIRECTORY } from './config.js';
import { OneLineRequestLog, turnBufferedStdout } from './request-log.js';
import { resources } from './resources/index.js';

export { resources };

export interface BookshopOptions {
  /** `sqlite::memory:`, `sqlite:/path/file.db` or `postgres://user@host:5432/db`. */
  readonly database: string;
  /** PostgreSQL only: the schema to keep the tables in (created when missing). */
  readonly databaseSchema?: string;
  /** PostgreSQL only: the most connections this process's pool opens (default 10; `DATABASE_POOL_MAX`). */
  readonly databasePoolMax?: number;
  /**
   * Log with pino to stdout, as JSON lines with the request id as `reqId`: one line per request, the lines of a turn of
   * the event loop written together (`request-log.ts`). Default false.
   */
  readonly logger?: boolean;
  /** The pino level when `logger` is on (default `info`). */
  readonly logLevel?: string;
  /**
   * Milliseconds a client has to send a whole request, and the longest a connection may stay silent (default 30000).
   */
  readonly requestTimeout?: number;
  /** Take the client address from `X-Forwarded-For` (behind a proxy you trust; default false). */
  readonly trustProxy?: boolean;
  /**
   * The host names the API answers for (the plugin's `trustedHosts`; `TRUSTED_HOSTS`); others get 400. Default: any.
   */
  readonly trustedHosts?: readonly string[];
  /** CORS (the production plugin's `cors` option; default off). */
  readonly cors?: CorsOptions | false;
  /** Rate limiting (the production plugin's `rateLimit` option; default off). */
  readonly rateLimit?: RateLimitOptions | false;
  /** The HS256 secret of the tokens (at least 32 bytes). */
  readonly jwtSecret: string;
  /** Token lifetime in seconds (default 3600). */
  readonly jwtTtl?: number;
  /** Refresh token lifetime in seconds (default 2,592,000: 30 days). */
  readonly jwtRefreshTtl?: number;
  /**
   * Creates this admin at start, or updates the password of the one the app created before. An account of that e-mail
   * that the app did not create is never promoted: the start fails, saying why.
   */
  readonly admin?: { readonly email: string; readonly password: string };
  /** The folder the uploaded images go to (default `examples/bookshop/var/uploads`). */
  readonly uploadsDirectory?: string;
  /**
   * Real-time updates of books and comments: an external Mercure hub (`url`, `jwtSecret`; `MERCURE_URL`,
   * `MERCURE_JWT_SECRET`), the hub's URL for subscribers (`publicUrl`; `MERCURE_PUBLIC_URL`), the Redis the built-in
   * hubs of several processes hand each other their updates through (`redis`; `MERCURE_REDIS_URL`); default: the
   * built-in hub at `/.well-known/mercure`.
   */
  readonly mercure?: {
    readonly url?: string;
    readonly publicUrl?: string;
    readonly jwtSecret?: string;
    readonly redis?: string;
  };
  /**
   * `memory`: public reads are kept in the framework's in-process cache (`HTTP_CACHE`), and purged by every write;
   * default `off`. Either way, public reads say `public, s-maxage=3600, max-age=0` and list their cache tags.
   */
  readonly httpCache?: 'off' | 'memory';
  /**
   * The Varnish servers purged by tag after each write (`VARNISH_URL`; their VCL includes the one the framework ships),
   * and the Redis the processes purge each other's in-process caches through (`REDIS_URL`; default: PostgreSQL).
   */
  readonly httpCachePurge?: { readonly varnish?: readonly string[] | undefined; readonly redis?: string | undefined };
  /** Other resources than the bookshop's (the benchmark swaps in variants); default `resources`. */
  readonly resources?: readonly ResourceInput[];
}

/** A ready Fastify instance serving the bookshop API under `/api`; the database schema is created when missing. */
export async function buildBookshop(options: BookshopOptions): Promise<FastifyInstance> {
  const app = Fastify({
    logger: options.logger ? { level: options.logLevel ?? 'info', stream: turnBufferedStdout() } : false,
    ...(options.logger ? { logController: new OneLineRequestLog(turnBufferedStdout()) } : {}),
    // A proxy's X-Request-Id is kept (and echoed by the plugin), so one id follows the request across services.
    genReqId: genRequestId,
    requestTimeout: options.requestTimeout ?? 30_000,
    connectionTimeout: options.requestTimeout ?? 30_000,
    trustProxy: options.trustProxy ?? false,
  });
  try {
    // Before the API: its pieces reach the API's routes as the API defines them, and none of the app's own.
    await app.register(production, { cors: options.cors ?? false, rateLimit: options.rateLimit ?? false });
    await app.register(resourceApi, {
      resources: options.resources ?? resources,
      database: options.database,
      ...(options.databaseSchema === undefined ? {} : { databaseSchema: options.databaseSchema }),
      ...(options.databasePoolMax === undefined ? {} : { databasePoolMax: options.databasePoolMax }),
      ...(options.trustedHosts ? { trustedHosts: options.trustedHosts } : {}),
      // Images of /api/media_objects, served at /media/<name>; a multipart body over 4 MiB gets 413.
      uploads: {
        storage: createLocalStorage({ directory: options.uploadsDirectory ?? DEFAULT_UPLOADS_DIRECTORY }),
        bodyLimit: 4 * 1024 * 1024,
      },
      // Books and comments are pushed to subscribers (the resources' `mercure`). The heartbeat comes well within the
      // connection timeout: an open subscription is never taken for an idle connection.
      // Public reads (no credentials, no access rule) may be kept an hour by shared caches, purged by every write;
      // browsers revalidate (their copy is not purged). Everything else is `private, no-store`.
      httpCache: {
        defaults: { sharedMaxAge: 3600, maxAge: 0 },
        ...(options.httpCache === 'memory' ? { store: 'memory' as const } : {}),
        ...(options.httpCachePurge?.varnish
          ? { purgers: [createVarnishPurger({ url: options.httpCachePurge.varnish })] }
          : {}),
        ...(options.httpCachePurge?.redis ? { redis: options.httpCachePurge.redis } : {}),
      },
      mercure: { ...options.mercure, heartbeat: Math.min(15_000, Math.floor((options.requestTimeout ?? 30_000) / 2)) },
      documentation: {
        title: 'Bookshop API',
        description:
          'The example app of resource-api: books, authors, users and their comments, a product catalog, articles.',
        version: '1.0.0',
      },
      security: {
        jwt: {
          secret: options.jwtSecret,
          ttl: options.jwtTtl ?? 3600,
          ...(options.jwtRefreshTtl === undefined ? {} : { refreshTtl: options.jwtRefreshTtl }),
        },
        users: {
          resource: 'User',
          identifier: 'email',
          password: 'plainPassword',
          roles: 'roles',
          // Registration gives ROLE_USER (always); a company also gets ROLE_COMPANY.
          onRegister: (user) => {
            if (user.isCompany === true) user.roles = [...(user.roles as string[]), 'ROLE_COMPANY'];
          },
        },
        // The default hierarchy (ROLE_SUPER_ADMIN includes ROLE_ADMIN, which includes ROLE_USER): a rank is given only
        // by someone who holds it, so only a super admin gives ROLE_SUPER_ADMIN (403 otherwise); admins give
        // ROLE_COMPANY. The values the roles field takes (anything else: `The value you selected is not a valid
        // choice.`).
        declaredRoles: ['ROLE_USER', 'ROLE_COMPANY', 'ROLE_ADMIN', 'ROLE_SUPER_ADMIN'],
      },
    });
    await app.ready();
    if (options.admin) await ensureAdmin(app, options.admin);
  } catch (error) {
    await app.close().catch(() => {});
    throw error;
  }
  return app;
}

/**
 * The first admin of `ADMIN_EMAIL` / `ADMIN_PASSWORD`, kept by the framework (`provisionUser`): created the first time
 * with ROLE_SUPER_ADMIN (which includes ROLE_ADMIN), its password and role given back on later starts. An account of
 * that e-mail that the app did not create (someone registered it first) is never promoted: the start fails with the
 * reason (logged at warn too); one that already holds ROLE_ADMIN (the admin an earlier version of the app made,
 * without the framework's mark) is taken as the app's own.
 */
async function ensureAdmin(app: FastifyInstance, admin: { email: string; password: string }): Promise<void> {
  try {
    await app.resourceApi.provisionUser({
      identifier: admin.email,
      password: admin.password,
      roles: ['ROLE_SUPER_ADMIN'],
      adopt: ['ROLE_ADMIN'],
    });
  } catch (error) {
    if (!(error instanceof AccountNotProvisionedError)) throw error;
    throw new Error(`ADMIN_EMAIL names an account the app did not create: the app refuses to start. ${error.message}`);
  }
}
