/**
 * The GraphQL endpoint: mercurius at `POST /graphql` (and `GET ?query=` for queries), GraphiQL for browsers, the
 * caller authenticated once per request with the same authenticator as REST, depth and complexity limits,
 * introspection switchable off. HTTP status 200 with `errors[]`, as API Platform answers.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { type DocumentNode, getOperationAST, Kind, Location, NoSchemaIntrospectionCustomRule, parse } from 'graphql';
import mercurius from 'mercurius';
import type { Runtime } from '../pipeline/operation-context.js';
import type { Telemetry } from '../telemetry/telemetry.js';
import { type ApiError, assertCount, DeclarationError } from '../errors.js';
import { toApiError } from '../response/render-error.js';
import { type ApiScopeSetup, markRoute, prepareApiScope } from '../routing/api-scope.js';
import { applyUndecidedCacheHeaders } from '../routing/undecided-cache-headers.js';
import { refuseMultipartBodies, registerJsonBodyParser } from '../routing/body-parsers.js';
import { readOrigin } from '../routing/to-operation-request.js';
import { ANONYMOUS, type Caller } from '../security/access.js';
import { buildGraphQLSchema } from './build-schema.js';
import { GraphQLFailure } from './graphql-failure.js';
import { hasPublishedWrites, toSubscriptionTopic } from './subscriptions.js';
import { GraphQLRequestScope } from './request-scope.js';
import type { GraphQLRequestContext } from './execute.js';
import type { FirstUseSchemas } from './first-use-schemas.js';
import { registerGraphiQL } from './graphiql-page.js';
import { findExceededLimit } from './limits.js';
import { limitCost } from './cost-limit.js';

/** The plugin's `graphql`: the endpoint, its limits, introspection, GraphiQL and query compilation. */
export interface GraphQLOptions {
  /** The endpoint (default `/graphql`). */
  readonly path?: string;
  /**
   * The deepest query accepted, in levels of fields (default 10; a whole number from 1 up). Introspection (under
   * `__schema` and `__type`) is not counted: graphql-js limits it itself.
   */
  readonly maxDepth?: number;
  /**
   * The most fields one operation may select, fragments expanded (default 1000; a whole number from 1 up). A document
   * may hold 20 tokens per field allowed.
   */
  readonly maxComplexity?: number;
  /**
   * The most items one operation may read (default 10,000): each connection counts its page size times the page sizes
   * of the connections around it, as GitHub counts nodes; a mutation that hashes a password counts `passwordWriteCost`.
   */
  readonly maxNodes?: number;
  /** The most aliases one operation may use, fragments expanded (default 15). */
  readonly maxAliases?: number;
  /** The most root fields the mutations of one document may hold (default 10). */
  readonly maxRootMutations?: number;
  /**
   * The items a mutation that hashes a password (its input may carry a password field) counts as (default 2,500: four
   * in the default budget).
   */
  readonly passwordWriteCost?: number;
  /** Schema introspection (default true; turn it off in production if you like). */
  readonly introspection?: boolean;
  /** GraphiQL for browsers at `GET <path>` (default true). */
  readonly graphiql?: boolean;
  /** Compile a query with graphql-jit once it has run this many times (default 1: from its second run); 0 never. */
  readonly jit?: number;
}

/**
 * mercurius keys its parsed and compiled queries by the query text alone, and compiles a query for the operation the
 * request that compiled it named: a later request naming another operation of the same document would run the first
 * one (a GET asking for a query could even run a mutation). So a request naming its operation gets the name appended
 * to its query as a comment (JSON-quoted: it holds no line break, so it cannot end the comment), which graphql-js
 * ignores and which makes the text, so the key, one per operation. The locations of errors do not move: the comment
 * comes last. A callback hook, not an async one: no promise per request.
 */
function keyedByOperation(request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void {
  const params = (request.method === 'GET' ? request.query : request.body) as {
    query?: unknown;
    operationName?: unknown;
  } | null;
  if (!params || typeof params.query !== 'string') {
    done();
    return;
  }
  const operationName =
    typeof params.operationName === 'string' && params.operationName !== '' ? params.operationName : undefined;
  // On GET, mercurius reads the operation's type without checking there is one (a TypeError when the name is unknown
  // or missing among several): the answer is the one graphql-js gives a POST.
  const missing = request.method === 'GET' ? missingOperation(params.query, operationName) : undefined;
  if (missing) {
    reply.code(200).send({ data: null, errors: [{ message: missing }] });
    return;
  }
  if (operationName !== undefined) params.query = `${params.query}\n# operation: ${JSON.stringify(operationName)}`;
  done();
}

/**
 * Why a query has no operation to run under that name (graphql-js's words); undefined when it has one or does not
 * parse.
 */
function missingOperation(query: string, operationName: string | undefined): string | undefined {
  let document: DocumentNode;
  try {
    document = parse(query);
  } catch {
    return undefined; // mercurius answers the syntax error
  }
  if (getOperationAST(document, operationName) !== null) return undefined;
  if (operationName !== undefined) return `Unknown operation named "${operationName}".`;
  return document.definitions.some((definition) => definition.kind === Kind.OPERATION_DEFINITION)
    ? 'Must provide operation name if query contains multiple operations.'
    : 'Must provide an operation.';
}

/**
 * The limits of a document, checked at start (whole numbers from 1 up; the password write cost from 0 up), or their
 * defaults.
 */
function resolveDocumentLimits(graphql: GraphQLOptions): {
  maxComplexity: number;
  maxDepth: number;
  maxAliases: number;
  maxRootMutations: number;
} {
  for (const name of ['maxComplexity', 'maxDepth', 'maxNodes', 'maxAliases', 'maxRootMutations'] as const)
    assertCount(`graphql.${name}`, graphql[name]);
  if (
    graphql.passwordWriteCost !== undefined &&
    !(Number.isInteger(graphql.passwordWriteCost) && graphql.passwordWriteCost >= 0)
  ) {
    throw new DeclarationError(
      `graphql.passwordWriteCost must be a whole number from 0 up, got ${String(graphql.passwordWriteCost)}.`,
    );
  }
  return {
    maxComplexity: graphql.maxComplexity ?? 1000,
    maxDepth: graphql.maxDepth ?? 10,
    maxAliases: graphql.maxAliases ?? 15,
    maxRootMutations: graphql.maxRootMutations ?? 10,
  };
}

/**
 * mercurius's subscription options: the connection's context made as an HTTP request's is, its caller authenticated
 * from the WebSocket upgrade's `Authorization` header, or from the `connection_init` payload's `authorization` (or
 * `Authorization`, or `headers.authorization`): browsers cannot set headers on a WebSocket. A token that does not
 * verify refuses the connection.
 */
function subscriptionOptions(runtime: Runtime) {
  const authenticate = async (authorization: unknown): Promise<Caller> =>
    runtime.security && typeof authorization === 'string' ? runtime.security.authenticate(authorization) : ANONYMOUS;
  return {
    context: async (_socket: unknown, request: FastifyRequest): Promise<Omit<GraphQLRequestContext, 'callerError'>> => {
      // A token that does not verify closes the connection (mercurius answers a throw here so), as in connection_init.
      const caller = await authenticate(request.headers.authorization);
      return {
        runtime,
        caller,
        log: request.log,
        headers: request.headers,
        ip: request.ip,
        requestId: request.id,
        origin: readOrigin(request),
        scope: new GraphQLRequestScope(runtime, caller),
      };
    },
    onConnect: async ({ payload }: { payload: unknown }) => {
      const init = (payload ?? {}) as Record<string, unknown> & { headers?: Record<string, unknown> };
      const authorization = init.authorization ?? init.Authorization ?? init.headers?.authorization;
      if (authorization === undefined) return true;
      try {
        const caller = await authenticate(authorization);
        return { caller, scope: new GraphQLRequestScope(runtime, caller) };
      } catch {
        return false;
      }
    },
  };
}

/** Tokens a document may hold per field `maxComplexity` allows (`b1: book(id: "/api/books/1") { id }` is 11 for 2). */
const TOKENS_PER_FIELD = 20;

/** What the plugin hands the GraphQL endpoint. */
export interface GraphQLRoutesOptions {
  readonly runtime: Runtime;
  readonly graphql: GraphQLOptions;
  readonly bodyLimit: number;
  readonly schemas: FirstUseSchemas;
  /** Traces and measures the endpoint's routes. */
  readonly telemetry: Telemetry;
  /** The hooks of the API's scopes (trusted hosts, lingering close, the production plugin's): `api-scope.ts`. */
  readonly setUpScope: ApiScopeSetup;
}

export async function registerGraphQLRoutes(app: FastifyInstance, options: GraphQLRoutesOptions): Promise<void> {
  const { runtime } = options;
  options.telemetry.attachToRoutes(app);
  const path = options.graphql.path ?? '/graphql';
  const graphiql = options.graphql.graphiql ?? true;
  // First: the scope's hooks (security headers among them) run before the hook that answers the GraphiQL page.
  prepareApiScope(app, { kind: 'graphql', path, graphiql }, options.setUpScope);
  // No GraphQL response is kept by a shared cache: a query's answer lists no tags a write could purge it by.
  const httpCacheOn = runtime.httpCache !== null;
  app.addHook('onSend', (_request, reply, payload, done) => {
    applyUndecidedCacheHeaders(reply, httpCacheOn);
    done(null, payload);
  });
  if (graphiql) registerGraphiQL(app, path, runtime.registry.prefix);
  // A browser's CORS preflight for the endpoint finds a route of the API here (the API's REST paths have theirs).
  app.options(path, async (_request, reply) => reply.code(204).header('allow', 'GET, HEAD, POST, OPTIONS').send());
  const { maxComplexity, maxDepth, maxAliases, maxRootMutations } = resolveDocumentLimits(options.graphql);
  const rules = options.graphql.introspection === false ? [NoSchemaIntrospectionCustomRule] : [];
  // Request bodies as strict as REST's: UTF-8, nested at most 64 levels, no unpaired surrogates in variables.
  registerJsonBodyParser(app, options.bodyLimit);
  refuseMultipartBodies(app);
  // mercurius's own route schemas: compiled after the server listens (`first-use-schemas.ts`).
  options.schemas.install(app);

  await app.register(mercurius, {
    schema: buildGraphQLSchema(runtime.registry),
    path,
    graphiql: false,
    // Parsing stops past this many tokens, long before a request body's limit: far more than a query within
    // `maxComplexity` needs (a field with its arguments is a few tokens).
    graphql: { parseOptions: { maxTokens: TOKENS_PER_FIELD * maxComplexity } },
    // A query seen before runs through graphql-jit's compiled executor (mercurius keeps them per query text): the
    // resolvers and so the pipeline are the same, graphql-js's generic walk of the selection set is not.
    jit: options.graphql.jit ?? 1,
    // A query is compiled for the operation its request named: that name goes into the key (`keyedByOperation`).
    additionalRouteOptions: { preHandler: keyedByOperation, config: markRoute({ kind: 'graphql' }) },
    validationRules: rules,
    // Subscriptions over WebSocket, when some resource's writes are published (`subscriptions.ts`).
    ...(runtime.mercure && runtime.registry.resources.some(hasPublishedWrites)
      ? { subscription: subscriptionOptions(runtime) }
      : {}),
    context: async (request, reply): Promise<GraphQLRequestContext> => {
      let caller: Caller = ANONYMOUS;
      let callerError: ApiError | undefined;
      if (runtime.security) {
        try {
          caller = await runtime.security.authenticate(request.headers.authorization);
        } catch (error) {
          callerError = toApiError(error).error;
          // The keys or the database are down: the same Retry-After as REST, though the answer's status stays 200
          // with the error in the body (logged where every GraphQL error is, `toGraphQLError`).
          if (callerError.status === 503) reply.headers(callerError.headers);
        }
      }
      return {
        runtime,
        caller,
        callerError,
        log: request.log,
        headers: request.headers,
        ip: request.ip,
        requestId: request.id,
        origin: readOrigin(request),
        scope: new GraphQLRequestScope(runtime, caller),
      };
    },
    errorFormatter: (execution, context) => {
      const formatted = mercurius.defaultErrorFormatter(execution, context);
      // Errors travel in the body; the HTTP status stays 200 when the query ran.
      return {
        statusCode:
          execution.data === undefined && formatted.statusCode >= 400 && formatted.statusCode !== 500
            ? formatted.statusCode
            : 200,
        response: formatted.response,
      };
    },
  });
  // mercurius reads a query that is not GraphQL text as a JSON-encoded syntax tree: `"5"` or `"[1]"` would reach
  // graphql-js's validation as a number or an array and fail inside it. Only documents parsed from GraphQL text (the
  // parser records where each came from) run; the rest are refused before validation. Runs only for queries not
  // already in mercurius's cache of parsed queries.
  app.graphql.addHook('preValidation', (_schema, document) => {
    // Parsed from text, a document's location is graphql-js's `Location`: a JSON tree can hold a `loc`, never that.
    if (!((document as { loc?: unknown } | null)?.loc instanceof Location))
      throw new GraphQLFailure('The query must be a GraphQL document.', undefined, 400);
    // The width and depth limits, before validation, whose own rules can take far longer than this walk on a document
    // made to be too complex (mercurius's depth check would come after it, and count introspection too).
    const refused = findExceededLimit(document, { maxComplexity, maxDepth, maxAliases, maxRootMutations });
    if (refused) throw new GraphQLFailure(refused, undefined, 400);
  });
  feedSubscriptions(app, runtime, { maxComplexity, maxDepth, maxAliases, maxRootMutations });
  // The node budget needs the variables: checked before execution, on every request (cost-limit.ts).
  limitCost(app, {
    maxNodes: options.graphql.maxNodes ?? 10_000,
    passwordWriteCost: options.graphql.passwordWriteCost ?? 2500,
  });
}

/**
 * The subscriptions' side of the endpoint: their documents held to the same limits as a query's (mercurius runs no
 * preValidation hook for them), and the committed writes handed to the subscriptions to their items, in the order
 * they go to the hub.
 */
function feedSubscriptions(
  app: FastifyInstance,
  runtime: Runtime,
  limits: Parameters<typeof findExceededLimit>[1],
): void {
  app.graphql.addHook('preSubscriptionExecution', (_schema, document) => {
    const refused = findExceededLimit(document, limits);
    if (refused) throw new GraphQLFailure(refused, undefined, 400);
  });
  if (!runtime.mercure || !runtime.registry.resources.some(hasPublishedWrites)) return;
  const { pubsub } = app.graphql;
  runtime.mercure.listen(({ resource, id, deleted }) =>
    pubsub.publish({ topic: toSubscriptionTopic(resource.name, id), payload: { id, deleted } }),
  );
}
