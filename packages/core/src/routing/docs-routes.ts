/**
 * The API's documents, registered inside the API's Fastify context (its error handler, 404 handler and Link header
 * apply): the JSON-LD contexts (`/api/contexts/<Type>`), the entrypoint and Swagger UI (`GET /api`, by Accept), the
 * Hydra API documentation (`/api/docs.jsonld`) and the OpenAPI document (`/api/docs.json`, `/api/docs.yaml`, or
 * `/api/docs` and `/api` by Accept). The OpenAPI document is built once, from metadata, and handed to @fastify/swagger
 * in static mode. Swagger UI's files are the package's own (`assets/swagger-ui/`, copied from @fastify/swagger-ui when
 * the package is built), served under `/api/docs/ui/static/`, beside the initializer that carries the document.
 */
import fastifySwagger from '@fastify/swagger';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { BoundedMemo } from '../bounded-memo.js';
import { ApiError } from '../errors.js';
import { DEFAULT_DOCUMENTATION, type DocumentationOptions } from '../openapi/build-openapi.js';
import { composeOpenApiDocument } from '../openapi-document.js';
import { renderSwaggerUiInitializer, renderSwaggerUiPage } from '../openapi/swagger-ui-page.js';
import type { Runtime } from '../pipeline/operation-context.js';
import { negotiateOutput } from '../pipeline/stages/negotiate.js';
import { buildHydraDocumentation } from '../serializer/hydra/documentation.js';
import { buildContext, buildEntrypoint } from '../serializer/jsonld/context.js';
import { MEDIA_TYPES } from '../serializer/vocabulary.js';
import { registerStaticAssets } from './static-assets.js';
import { readOrigin } from './to-operation-request.js';

const HTML = 'text/html';
const OPENAPI_JSON = 'application/vnd.openapi+json';
const OPENAPI_YAML = 'application/vnd.openapi+yaml';
const JSON_DOCUMENT_TYPES = [MEDIA_TYPES.jsonld, MEDIA_TYPES.json];

/** The media type the client prefers among `available`, or a 406 naming them. */
function negotiate(request: FastifyRequest, available: readonly string[]): string {
  const type = negotiateOutput(request.headers.accept, available);
  if (!type)
    throw new ApiError(
      'NOT_ACCEPTABLE',
      `Requested format "${request.headers.accept}" is not supported. Supported MIME types are "${available.join('", "')}".`,
    );
  return type;
}

/**
 * A JSON-LD document that is not an operation's (contexts, entrypoint, Hydra docs): 406 unless the client takes JSON.
 */
function sendDocument(request: FastifyRequest, reply: FastifyReply, body: unknown): FastifyReply {
  return reply.header('content-type', `${negotiate(request, JSON_DOCUMENT_TYPES)}; charset=utf-8`).send(body);
}

async function documents(
  app: FastifyInstance,
  options: { runtime: Runtime; documentation: DocumentationOptions | undefined },
): Promise<void> {
  const { runtime } = options;
  const { registry } = runtime;
  const documentation = { ...DEFAULT_DOCUMENTATION, ...options.documentation };
  const planOf = runtime.normalizer.plan.bind(runtime.normalizer);
  const login =
    runtime.security && runtime.security.settings.loginPath !== false
      ? { path: runtime.security.settings.loginPath, identifier: runtime.security.settings.identifier }
      : undefined;
  const openApi = composeOpenApiDocument(registry, planOf, { documentation, ...(login ? { login } : {}) });

  await app.register(fastifySwagger, { mode: 'static', specification: { document: openApi as never } });
  const uiPath = '/docs/ui';
  const initializer = renderSwaggerUiInitializer(openApi);
  app.get(`${uiPath}/static/swagger-initializer.js`, (_request, reply) =>
    reply.header('content-type', 'text/javascript; charset=utf-8').send(initializer),
  );
  registerStaticAssets(app, { folder: 'swagger-ui', route: `${uiPath}/static`, prefix: registry.prefix });
  const uiPage = renderSwaggerUiPage({ title: documentation.title, assets: `${registry.prefix}${uiPath}` });

  // One per host name the API is reached by; bounded, as the Host header is the client's to choose.
  const hydraByOrigin = new BoundedMemo<string, unknown>(64);
  const hydra = (origin: string) =>
    hydraByOrigin.remember(origin, () =>
      buildHydraDocumentation(registry, {
        origin,
        planOf,
        title: documentation.title,
        description: documentation.description,
      }),
    );

  const sendOpenApi = (reply: FastifyReply, type: string) =>
    type === OPENAPI_YAML || type === 'application/yaml'
      ? reply.header('content-type', `${type}; charset=utf-8`).send(app.swagger({ yaml: true }))
      : reply.header('content-type', `${type}; charset=utf-8`).send(app.swagger());
  const sendUi = (reply: FastifyReply) => reply.header('content-type', 'text/html; charset=utf-8').send(uiPage);

  app.get('/contexts/:name', async (request, reply) => {
    const name = (request.params as { name: string }).name.replace(/\.jsonld$/, '');
    const body = buildContext(name, registry, readOrigin(request));
    if (!body) throw new ApiError('ROUTE_NOT_FOUND', `No context found for type "${name}".`);
    return sendDocument(request, reply, body);
  });

  // JSON-LD first: what `*/*` (API Platform Admin) and no Accept at all get. Browsers prefer text/html.
  app.get('/', async (request, reply) => {
    const type = negotiate(request, [...JSON_DOCUMENT_TYPES, HTML, OPENAPI_JSON, OPENAPI_YAML]);
    if (type === HTML) return sendUi(reply);
    if (type === OPENAPI_JSON || type === OPENAPI_YAML) return sendOpenApi(reply, type);
    return reply.header('content-type', `${type}; charset=utf-8`).send(buildEntrypoint(registry));
  });

  app.get('/docs', async (request, reply) => {
    const type = negotiate(request, [MEDIA_TYPES.jsonld, HTML, OPENAPI_JSON, MEDIA_TYPES.json, OPENAPI_YAML]);
    if (type === HTML) return sendUi(reply);
    if (type === MEDIA_TYPES.jsonld)
      return reply.header('content-type', `${type}; charset=utf-8`).send(hydra(readOrigin(request)));
    return sendOpenApi(reply, type);
  });
  app.get('/docs.jsonld', async (request, reply) => sendDocument(request, reply, hydra(readOrigin(request))));
  app.get('/docs.json', async (request, reply) => {
    const type = negotiateOutput(request.headers.accept, [MEDIA_TYPES.json, OPENAPI_JSON]) ?? MEDIA_TYPES.json;
    return sendOpenApi(reply, type);
  });
  app.get('/docs.jsonopenapi', async (_request, reply) => sendOpenApi(reply, OPENAPI_JSON));
  app.get('/docs.yaml', async (_request, reply) => sendOpenApi(reply, OPENAPI_YAML));
  app.get('/docs.yamlopenapi', async (_request, reply) => sendOpenApi(reply, OPENAPI_YAML));
  app.get('/docs.html', async (_request, reply) => sendUi(reply));
}

/** Not encapsulated: the routes share the API context's handlers and hooks. */
export const docsRoutes = fp(documents, { name: 'resource-api-docs' });
