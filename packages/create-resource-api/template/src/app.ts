import Fastify, { type FastifyInstance } from 'fastify';
import { genRequestId, production, resourceApi } from '@resource-api/core';
import { resources } from './resources/index.js';

/**
 * The application: Fastify with the production pieces (security headers, health routes at /health, request ids) and
 * the API of the resources under /api, on the database given. Register `production` before `resourceApi`.
 */
export async function buildApp(options: { database: string; logger?: boolean }): Promise<FastifyInstance> {
  const app = Fastify({ logger: options.logger ?? false, genReqId: genRequestId });
  await app.register(production, {});
  await app.register(resourceApi, { resources, database: options.database });
  return app;
}
