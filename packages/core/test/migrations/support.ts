/**
 * A database that outlives one app, for the migration tests: generate, run and start are separate connections, so
 * SQLite is a file of its own, PostgreSQL a fresh schema and MariaDB a fresh database, both removed by `drop()`. Plus a migrations folder of
 * its own, and an app started on the database with schema sync off, as in production.
 */
import { dropTestSchema } from '@resource-api/core/testing';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import knexFactory, { type Knex } from 'knex';
import { openDatabase, type ResourceApiOptions, type ResourceInput, resourceApi } from '@resource-api/core';
import type { TestDatabase } from '@resource-api/core/testing';

export interface MigrationTarget {
  readonly name: TestDatabase['name'];
  /** What `generateMigration`, `runMigrations` and the plugin take. */
  readonly database: string;
  readonly databaseSchema: string | undefined;
  /** A fresh folder for the migration files. */
  readonly directory: string;
  /** A knex of its own on the database, to look at it directly; closed by `drop()`. */
  readonly knex: Knex;
  drop(): Promise<void>;
}

export async function freshTarget(database: TestDatabase): Promise<MigrationTarget> {
  const folder = mkdtempSync(join(tmpdir(), 'resource-api-migrations-'));
  const directory = join(folder, 'migrations');
  if (database.name === 'sqlite') {
    const file = join(folder, 'data.db');
    const knex = knexFactory({
      client: 'better-sqlite3',
      connection: { filename: file },
      useNullAsDefault: true,
      pool: {
        min: 1,
        max: 1,
        // As the plugin opens SQLite: foreign keys enforced.
        afterCreate(
          connection: { pragma(source: string): unknown },
          done: (error: Error | null, connection: unknown) => void,
        ) {
          connection.pragma('foreign_keys = ON');
          done(null, connection);
        },
      },
    });
    return {
      name: 'sqlite',
      database: `sqlite:${file}`,
      databaseSchema: undefined,
      directory,
      knex,
      drop: async () => {
        await knex.destroy();
        rmSync(folder, { recursive: true, force: true });
      },
    };
  }
  const schema = `test_mig_${randomBytes(6).toString('hex')}`;
  if (database.name === 'mariadb') {
    // A database of its own, opened as the plugin opens it (the session settings of `mysql-database.ts`).
    const opened = await openDatabase({ url: database.url, schema, poolMax: 2 });
    return {
      name: 'mariadb',
      database: database.url,
      databaseSchema: schema,
      directory,
      knex: opened.knex,
      drop: async () => {
        await dropTestSchema(opened.knex, schema);
        await opened.close();
        rmSync(folder, { recursive: true, force: true });
      },
    };
  }
  const knex = knexFactory({ client: 'pg', connection: database.url, searchPath: [schema], pool: { min: 0, max: 2 } });
  await knex.raw('CREATE SCHEMA ??', [schema]);
  return {
    name: 'postgres',
    database: database.url,
    databaseSchema: schema,
    directory,
    knex,
    drop: async () => {
      await dropTestSchema(knex, schema);
      await knex.destroy();
      rmSync(folder, { recursive: true, force: true });
    },
  };
}

/** The options every migration call takes for this target. */
export const on = (target: MigrationTarget) => ({
  database: target.database,
  directory: target.directory,
  ...(target.databaseSchema ? { databaseSchema: target.databaseSchema } : {}),
});

/** The API on the target's database, with schema sync off (unless `extra` says otherwise). */
export async function startApp(
  target: MigrationTarget,
  resources: readonly ResourceInput[],
  extra: Partial<ResourceApiOptions> = {},
): Promise<FastifyInstance> {
  const app = Fastify();
  try {
    await app.register(resourceApi, {
      resources,
      database: target.database,
      databaseSchema: target.databaseSchema,
      schemaSync: false,
      graphql: false,
      ...extra,
    });
    await app.ready();
  } catch (error) {
    await app.close();
    throw error;
  }
  return app;
}

/** Runs `work` with NODE_ENV set to `value`, putting the previous value back after. */
export async function withNodeEnv<T>(value: string, work: () => Promise<T>): Promise<T> {
  const previous = process.env.NODE_ENV;
  process.env.NODE_ENV = value;
  try {
    return await work();
  } finally {
    if (previous === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = previous;
  }
}
