/**
 * The API's documents: the JSON-LD contexts (`/api/contexts/<Type>`) and the entrypoint (`GET /api`). Registered
 * inside the API's Fastify context, so its error handler, 404 handler and Link header apply.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { ApiError } from '../errors.js';
import type { Runtime } from '../pipeline/operation-context.js';
import { negotiateOutput } from '../pipeline/stages/negotiate.js';
import { buildContext, buildEntrypoint } from '../serializer/jsonld/context.js';
import { MEDIA_TYPES } from '../serializer/vocabulary.js';
import { originOf } from './to-operation-request.js';

/** A JSON-LD document that is not an operation's (contexts, entrypoint): 406 unless the client takes JSON. */
function sendDocument(request: FastifyRequest, reply: FastifyReply, body: unknown): FastifyReply {
  const type = negotiateOutput(request.headers.accept);
  if (!type) throw new ApiError('NOT_ACCEPTABLE', `Requested format "${request.headers.accept}" is not supported. Supported MIME types are "${MEDIA_TYPES.jsonld}", "${MEDIA_TYPES.json}".`);
  return reply.header('content-type', `${type}; charset=utf-8`).send(body);
}

async function documents(app: FastifyInstance, options: { runtime: Runtime }): Promise<void> {
  const { registry } = options.runtime;
  app.get('/contexts/:name', async (request, reply) => {
    const name = (request.params as { name: string }).name.replace(/\.jsonld$/, '');
    const body = buildContext(name, registry, originOf(request));
    if (!body) throw new ApiError('ROUTE_NOT_FOUND', `No context found for type "${name}".`);
    return sendDocument(request, reply, body);
  });

  app.get('/', async (request, reply) => sendDocument(request, reply, buildEntrypoint(registry)));
}

/** Not encapsulated: the routes share the API context's handlers and hooks. */
export const docsRoutes = fp(documents, { name: 'resource-api-docs' });
