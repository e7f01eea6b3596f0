/**
 * The API's routes, registered under the prefix in their own Fastify context: one route per operation, 405 with
 * `Allow` for the other methods of a known path, the documents of `docs-routes.ts`, and the 404 / error handlers that
 * render every error through `response/render-error.ts`. Every response carries the Hydra `Link` header and
 * `Vary: Accept`; GETs an `ETag` (`send-response.ts`).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { BoundedMemo } from '../bounded-memo.js';
import { ApiError } from '../errors.js';
import type { OperationResponse, Runtime } from '../pipeline/operation-context.js';
import type { DocumentationOptions } from '../openapi/build-openapi.js';
import { carriesEntityTag } from '../metadata/carries-entity-tag.js';
import type { Sessions } from '../security/sessions.js';
import type { Telemetry } from '../telemetry/telemetry.js';
import { runOperation } from '../pipeline/run-operation.js';
import { logServiceError, renderError } from '../response/render-error.js';
import { buildDocsUrl } from '../serializer/jsonld/context.js';
import { API_DOC_REL } from '../serializer/vocabulary.js';
import multipart from '@fastify/multipart';
import type { FileStorage } from '../files/file-storage.js';
import { registerBodyParsers } from './body-parsers.js';
import { createMultipartHooks, MULTIPART_FORM_DATA, type MultipartLimits } from './read-multipart.js';
import { docsRoutes } from './docs-routes.js';
import { type ApiScopeSetup, markRoute, prepareApiScope } from './api-scope.js';
import { registerLoginRoute } from './login-route.js';
import { sendResponse } from './send-response.js';
import { registerFrontCacheHits } from './front-cache-hits.js';
import { registerMemoryCacheHooks } from './memory-cache-hooks.js';
import { registerReadsInFlightHooks } from './reads-in-flight-hooks.js';
import { applyUndecidedCacheHeaders } from './undecided-cache-headers.js';
import { readOrigin, toOperationRequest } from './to-operation-request.js';

export interface ApiRoutesOptions {
  readonly runtime: Runtime;
  readonly bodyLimit: number;
  /** Issues login tokens (and refreshes and revokes them), when security is on with a secret. */
  readonly sessions: Sessions | undefined;
  /** Titles and descriptions of the API documentation. */
  readonly documentation: DocumentationOptions | undefined;
  /** The hooks of the API's scopes (trusted hosts, lingering close, the production plugin's): `api-scope.ts`. */
  readonly setUpScope: ApiScopeSetup;
  /** Traces and measures each route registered here. */
  readonly telemetry: Telemetry;
  /** Where uploads go, and the limits of multipart bodies (operations that write a file field). */
  readonly uploads: { readonly storage: FileStorage; readonly limits: MultipartLimits };
}

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** Sends what the operation returned; what sending throws (a failed `If-Match`) becomes the error response. */
function sendOrFail(request: FastifyRequest, reply: FastifyReply, response: OperationResponse, tagged: boolean): void {
  try {
    sendResponse(request, reply, response, tagged);
  } catch (error) {
    failWith(reply, error);
  }
}

/**
 * Answers with the error handler's response. Fastify takes an `Error` sent as an error; anything else thrown (a
 * string, a plain object) goes in a `ThrownValue`, else it would be sent as the body, and the handler unwraps it.
 */
function failWith(reply: FastifyReply, error: unknown): void {
  reply.send(error instanceof Error ? error : new ThrownValue(error));
}

class ThrownValue extends Error {
  constructor(readonly value: unknown) {
    super(String(value));
  }
}

export async function registerApiRoutes(app: FastifyInstance, options: ApiRoutesOptions): Promise<void> {
  const { runtime } = options;
  const { registry } = runtime;
  const prefix = registry.prefix;
  const local = (template: string) => template.slice(prefix.length).replace(/\{(\w+)\}/g, ':$1') || '/';
  options.telemetry.attachToRoutes(app);

  prepareApiScope(app, { kind: 'rest', prefix }, options.setUpScope);
  registerBodyParsers(app, options.bodyLimit);
  const uploadHooks = createMultipartHooks(options.uploads.storage, options.uploads.limits);

  // One Link value per origin, made once (bounded: the Host header is the client's to choose). A callback hook, not
  // an async one: no promise per response.
  const links = new BoundedMemo<string, string>(64);
  const httpCacheOn = runtime.httpCache !== null;
  app.addHook('onSend', (request, reply, payload, done) => {
    const origin = readOrigin(request);
    const link = links.get(origin) ?? links.keep(origin, `<${buildDocsUrl(origin, registry)}>; rel="${API_DOC_REL}"`);
    // The API documentation's link first, then any the scope's own hooks added before (Mercure's hub).
    const existing = reply.getHeader('link');
    reply.header('link', existing === undefined ? link : `${link}, ${String(existing)}`);
    applyUndecidedCacheHeaders(reply, httpCacheOn);
    done(null, payload);
  });
  // After the hook above: a response kept is whole but for the Link header, which that hook adds to a hit again.
  const httpCache = runtime.httpCache;
  // Before the in-process cache's: a read it answers may be stored by a shared cache too.
  if (httpCache?.reads) registerReadsInFlightHooks(app, { reads: httpCache.reads, clock: httpCache.clock });
  if (httpCache?.store) {
    registerMemoryCacheHooks(app, { store: httpCache.store, clock: httpCache.clock, settings: httpCache.settings });
    if (httpCache.settings.answerHits === 'beforeApp')
      registerFrontCacheHits(app, { store: httpCache.store, settings: httpCache.settings, reads: httpCache.reads });
  }

  app.setErrorHandler((caught, request, reply) => {
    const error = caught instanceof ThrownValue ? caught.value : caught;
    const rendered = renderError(error, { accept: request.headers.accept, prefix });
    if (!logServiceError(request.log, error, rendered))
      request.log.info({ code: rendered.error.code, status: rendered.status }, rendered.error.message);
    return reply.code(rendered.status).headers(rendered.headers).send(rendered.body);
  });

  app.setNotFoundHandler((request) => {
    throw new ApiError('ROUTE_NOT_FOUND', `No route found for "${request.method} ${request.url.split('?')[0]}".`);
  });

  const byPath = new Map<string, Set<string>>();
  const uploadRoutes: RouteOptions[] = [];
  for (const resource of registry.resources) {
    for (const operation of resource.operations) {
      const tagged = carriesEntityTag(operation, resource);
      const route: RouteOptions = {
        method: operation.method,
        url: local(operation.uriTemplate),
        config: markRoute({ kind: 'operation', operation: operation.name, resource: resource.name }),
        // A handler that returns nothing, not an async one. An async handler resolves with the reply, a thenable:
        // Fastify then waits for the response's stream to finish (listeners on it, per request) to learn what the
        // handler already did. Errors, thrown or rejected, go to the error handler through `reply.send` as before.
        handler: (request, reply) => {
          runOperation(runtime, operation, toOperationRequest(request)).then(
            (response) => sendOrFail(request, reply, response, tagged),
            (error: unknown) => failWith(reply, error),
          );
        },
      };
      if (operation.inputFormats.includes(MULTIPART_FORM_DATA)) uploadRoutes.push({ ...route, ...uploadHooks });
      else app.route(route);
      const methods = byPath.get(operation.uriTemplate) ?? new Set<string>();
      methods.add(operation.method);
      byPath.set(operation.uriTemplate, methods);
    }
  }
  // The operations that take uploads, in a context of their own with @fastify/multipart: its hooks (an async
  // onRequest and onResponse, a listener per request) run for them only. Elsewhere a multipart body is read unparsed
  // and refused with a 415 by the negotiate stage, as any type the operation does not take.
  if (uploadRoutes.length > 0)
    await app.register(async (uploads) => {
      await uploads.register(multipart);
      for (const route of uploadRoutes) uploads.route(route);
    });

  for (const [template, methods] of byPath) {
    const allowed = METHODS.filter((m) => methods.has(m)).flatMap((m) => (m === 'GET' ? ['GET', 'HEAD'] : [m]));
    const allow = allowed.join(', ');
    const others = [...METHODS, 'HEAD'].filter((m) => !allowed.includes(m));
    if (others.length > 0) {
      app.route({
        method: others,
        url: local(template),
        handler: async (request) => {
          throw new ApiError(
            'METHOD_NOT_ALLOWED',
            `No route found for "${request.method} ${request.url.split('?')[0]}": Method Not Allowed (Allow: ${allow}).`,
            { headers: { allow } },
          );
        },
      });
    }
    app.options(local(template), async (_request, reply) =>
      reply.code(204).header('allow', `${allow}, OPTIONS`).send(),
    );
  }

  await app.register(docsRoutes, { runtime, documentation: options.documentation });
  if (runtime.security && options.sessions)
    registerLoginRoute(app, {
      security: runtime.security.settings,
      sessions: options.sessions,
      database: runtime.database,
    });
}
