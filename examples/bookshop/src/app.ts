/**
 * The bookshop application: a Fastify instance with the `resourceApi` plugin, the bookshop's resources and its
 * security (JWT login on `POST /api/auth`, the user resource, roles). Every route comes from the framework; this file
 * only wires it, and creates the first admin when asked.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { type CorsOptions, genRequestId, hashPassword, type RateLimitOptions, type ResourceInput, resourceApi } from '@resource-api/core';
import { resources } from './resources/index.js';

export { resources };

export interface BookshopOptions {
  /** `sqlite::memory:`, `sqlite:/path/file.db` or `postgres://user@host:5432/db`. */
  readonly database: string;
  /** PostgreSQL only: the schema to keep the tables in (created when missing). */
  readonly databaseSchema?: string;
  /** PostgreSQL only: the most connections this process's pool opens (default 10; `DATABASE_POOL_MAX`). */
  readonly databasePoolMax?: number;
  /** Log requests with pino, as JSON lines with the request id as `reqId` (default false). */
  readonly logger?: boolean;
  /** The pino level when `logger` is on (default `info`). */
  readonly logLevel?: string;
  /** Milliseconds a client has to send a whole request, and the longest a connection may stay silent (default 30000). */
  readonly requestTimeout?: number;
  /** Take the client address from `X-Forwarded-For` (behind a proxy you trust; default false). */
  readonly trustProxy?: boolean;
  /** CORS (the plugin's `cors` option; default off). */
  readonly cors?: CorsOptions | false;
  /** Rate limiting (the plugin's `rateLimit` option; default off). */
  readonly rateLimit?: RateLimitOptions | false;
  /** The HS256 secret of the tokens (at least 32 bytes). */
  readonly jwtSecret: string;
  /** Token lifetime in seconds (default 3600). */
  readonly jwtTtl?: number;
  /** Creates this admin, or updates its password, at start. */
  readonly admin?: { readonly email: string; readonly password: string };
  /** Other resources than the bookshop's (the benchmark swaps in variants); default `resources`. */
  readonly resources?: readonly ResourceInput[];
}

/** A ready Fastify instance serving the bookshop API under `/api`; the database schema is created when missing. */
export async function buildBookshop(options: BookshopOptions): Promise<FastifyInstance> {
  const app = Fastify({
    logger: options.logger ? { level: options.logLevel ?? 'info' } : false,
    // A proxy's X-Request-Id is kept (and echoed by the plugin), so one id follows the request across services.
    genReqId: genRequestId,
    requestTimeout: options.requestTimeout ?? 30_000,
    connectionTimeout: options.requestTimeout ?? 30_000,
    trustProxy: options.trustProxy ?? false,
  });
  try {
    await app.register(resourceApi, {
      resources: options.resources ?? resources,
      database: options.database,
      ...(options.databaseSchema === undefined ? {} : { databaseSchema: options.databaseSchema }),
      ...(options.databasePoolMax === undefined ? {} : { databasePoolMax: options.databasePoolMax }),
      cors: options.cors ?? false,
      rateLimit: options.rateLimit ?? false,
      documentation: {
        title: 'Bookshop API',
        description: 'The example app of resource-api: books, authors, users and their comments, a product catalog, articles.',
        version: '1.0.0',
      },
      security: {
        jwt: { secret: options.jwtSecret, ttl: options.jwtTtl ?? 3600 },
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
 * Creates the admin user, or gives it the password and ROLE_ADMIN again (keeping its other roles). Instances started
 * together may both find no admin: the one whose insert loses to the unique e-mail updates the winner's row instead.
 */
async function ensureAdmin(app: FastifyInstance, admin: { email: string; password: string }, retried = false): Promise<void> {
  const { knex, dialect } = app.resourceApi.database;
  const password = await hashPassword(admin.password);
  const existing = await knex('user').where('email', admin.email).first('id', 'roles');
  const stored = existing ? ((typeof existing.roles === 'string' ? JSON.parse(existing.roles) : existing.roles) as string[] | null) ?? [] : [];
  const roles = JSON.stringify([...new Set(['ROLE_USER', ...stored, 'ROLE_ADMIN'])]);
  if (existing) {
    await knex('user').where('id', existing.id).update({ password, roles });
    return;
  }
  try {
    await knex('user').insert({ email: admin.email, password, roles, is_company: false });
  } catch (error) {
    if (retried || !dialect.isUniqueViolation(error)) throw error;
    await ensureAdmin(app, admin, true);
  }
}
