/**
 * The node budget of a GraphQL request, checked once the document is valid and the variables known (mercurius's
 * `preExecution` hook, which runs for every request, cached and compiled queries included), before any resolver: an
 * operation that may read more items than `graphql.maxNodes` (cost.ts) is refused with a 400 naming the limit and the
 * figures. An operation within it counts each of its root fields against the rate limit (the request itself counted
 * once already).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { getOperationAST } from 'graphql';
import type {} from 'mercurius';
import { GraphQLFailure } from './graphql-failure.js';
import { countMore } from '../routing/request-cost.js';
import { computeOperationCost } from './cost.js';

export interface CostLimits {
  /** The most items one operation may read (`graphql.maxNodes`). */
  readonly maxNodes: number;
  /** What a mutation that hashes a password weighs, in items (`graphql.passwordWriteCost`). */
  readonly passwordWriteCost: number;
}

/** The operation a request names (none: the document's only one). */
function operationNameOf(request: FastifyRequest | undefined): string | undefined {
  const params = (request?.method === 'GET' ? request.query : request?.body) as
    | { operationName?: unknown }
    | null
    | undefined;
  return typeof params?.operationName === 'string' && params.operationName !== '' ? params.operationName : undefined;
}

export function limitCost(app: FastifyInstance, limits: CostLimits): void {
  const weights = { passwordWrite: limits.passwordWriteCost };
  app.graphql.addHook('preExecution', async (schema, document, context, variables) => {
    const request = (context as { reply?: { request: FastifyRequest } }).reply?.request;
    const operation = getOperationAST(document, operationNameOf(request));
    // No such operation: graphql-js's execution answers it, running nothing.
    if (!operation) return;
    const { nodes, rootFields } = computeOperationCost(
      schema,
      document,
      operation,
      variables as Record<string, unknown> | undefined,
      weights,
    );
    if (nodes > limits.maxNodes) {
      throw new GraphQLFailure(
        `The query is too costly: it may read up to ${nodes} items, more than the limit of ${limits.maxNodes} (graphql.maxNodes). Ask for smaller pages (first, last or itemsPerPage), fewer nested connections or fewer password changes.`,
        { code: 'QUERY_TOO_COSTLY', cost: nodes, maxNodes: limits.maxNodes },
        400,
      );
    }
    if (request) await countMore(request, rootFields - 1);
  });
}
