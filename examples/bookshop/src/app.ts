/**
 * The bookshop application: a Fastify instance with the `resourceApi` plugin and the bookshop's resources. Every
 * route comes from the framework; this file only wires it.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { resourceApi } from '@resource-api/core';
import { resources } from './resources/index.js';

export { resources };

export interface BookshopOptions {
  /** `sqlite::memory:`, `sqlite:/path/file.db` or `postgres://user@host:5432/db`. */
  readonly database: string;
  /** PostgreSQL only: the schema to keep the tables in (created when missing). */
  readonly databaseSchema?: string;
  /** Log requests with pino (default false). */
  readonly logger?: boolean;
}

// JWT (contract): `JWT_SECRET` (HS256; a generated one kept under `var/` in development, required in production) and
// `POST /api/auth` — arrive with the security issue.
// First admin (contract): `ADMIN_EMAIL` + `ADMIN_PASSWORD` create or update a `ROLE_ADMIN` user at start — arrives
// with the security issue.

/** A ready Fastify instance serving the bookshop API under `/api`; the database schema is created when missing. */
export async function buildBookshop(options: BookshopOptions): Promise<FastifyInstance> {
  const app = Fastify({ logger: options.logger ?? false });
  try {
    await app.register(resourceApi, {
      resources,
      database: options.database,
      ...(options.databaseSchema === undefined ? {} : { databaseSchema: options.databaseSchema }),
    });
    await app.ready();
  } catch (error) {
    await app.close().catch(() => {});
    throw error;
  }
  return app;
}
