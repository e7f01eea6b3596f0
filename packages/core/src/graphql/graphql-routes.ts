/**
 * The GraphQL endpoint: mercurius at `POST /graphql` (and `GET ?query=` for queries), GraphiQL for browsers, the
 * caller authenticated once per request with the same authenticator as REST, depth and complexity limits,
 * introspection switchable off. HTTP status 200 with `errors[]`, as API Platform answers.
 */
import type { FastifyInstance } from 'fastify';
import { NoSchemaIntrospectionCustomRule } from 'graphql';
import mercurius from 'mercurius';
import type { Runtime } from '../pipeline/operation-context.js';
import { toApiError } from '../response/render-error.js';
import { registerJsonBodyParser } from '../routing/body-parsers.js';
import { ANONYMOUS, type Caller } from '../security/access.js';
import { buildGraphQLSchema } from './build-schema.js';
import type { GraphQLRequestContext } from './execute.js';
import type { FirstUseSchemas } from './first-use-schemas.js';
import { registerGraphiQL } from './graphiql-page.js';
import { maxComplexityRule } from './limits.js';

/** The plugin's `graphql`: the endpoint, its limits, introspection, GraphiQL and query compilation. */
export interface GraphQLOptions {
  /** The endpoint (default `/graphql`). */
  readonly path?: string;
  /** The deepest query accepted (default 10). */
  readonly maxDepth?: number;
  /** The most fields one query may select (default 1000). */
  readonly maxComplexity?: number;
  /** Schema introspection (default true; turn it off in production if you like). */
  readonly introspection?: boolean;
  /** GraphiQL for browsers at `GET <path>` (default true). */
  readonly graphiql?: boolean;
  /** Compile a query with graphql-jit once it has run this many times (default 1: from its second run); 0 never. */
  readonly jit?: number;
}

export async function graphqlRoutes(app: FastifyInstance, options: { runtime: Runtime; graphql: GraphQLOptions; bodyLimit: number; schemas: FirstUseSchemas }): Promise<void> {
  const { runtime } = options;
  const path = options.graphql.path ?? '/graphql';
  if (options.graphql.graphiql ?? true) registerGraphiQL(app, path);
  const rules = [maxComplexityRule(options.graphql.maxComplexity ?? 1000)];
  if (options.graphql.introspection === false) rules.push(NoSchemaIntrospectionCustomRule as never);
  // Request bodies as strict as REST's: UTF-8, nested at most 64 levels, no unpaired surrogates in variables.
  registerJsonBodyParser(app, options.bodyLimit);
  // mercurius's own route schemas: compiled after the server listens (`first-use-schemas.ts`).
  options.schemas.install(app);

  await app.register(mercurius, {
    schema: buildGraphQLSchema(runtime.registry),
    path,
    graphiql: false,
    queryDepth: options.graphql.maxDepth ?? 10,
    // A query seen before runs through graphql-jit's compiled executor (mercurius keeps them per query text): the
    // resolvers and so the pipeline are the same, graphql-js's generic walk of the selection set is not.
    jit: options.graphql.jit ?? 1,
    validationRules: rules,
    context: async (request): Promise<GraphQLRequestContext> => {
      let caller: Caller = ANONYMOUS;
      let callerError;
      if (runtime.security) {
        try {
          caller = await runtime.security.authenticate(request.headers.authorization);
        } catch (error) {
          callerError = toApiError(error).error;
        }
      }
      return { runtime, caller, callerError, log: request.log };
    },
    errorFormatter: (execution, context) => {
      const formatted = mercurius.defaultErrorFormatter(execution, context);
      // Errors travel in the body; the HTTP status stays 200 when the query ran.
      return { statusCode: execution.data === undefined && formatted.statusCode >= 400 && formatted.statusCode !== 500 ? formatted.statusCode : 200, response: formatted.response };
    },
  });
  // mercurius reads a query that is not GraphQL text as a JSON-encoded syntax tree: `"5"` or `"[1]"` would reach
  // graphql-js's validation as a number or an array and fail inside it. Only documents parsed from GraphQL text (the
  // parser records where each came from) run; the rest are refused before validation. Runs only for queries not
  // already in mercurius's cache of parsed queries.
  app.graphql.addHook('preValidation', (_schema, document) => {
    if ((document as { loc?: unknown } | null)?.loc === undefined) throw new mercurius.ErrorWithProps('The query must be a GraphQL document.', undefined, 400);
  });
}
