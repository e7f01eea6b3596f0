import Fastify, { type FastifyInstance } from 'fastify';
import { resourceApi } from '@resource-api/core';
import { resources } from './resources/index.js';

/** The application: Fastify with the API of the resources under /api, on the database given. */
export async function buildApp(options: { database: string; logger?: boolean }): Promise<FastifyInstance> {
  const app = Fastify({ logger: options.logger ?? false });
  await app.register(resourceApi, { resources, database: options.database });
  return app;
}
