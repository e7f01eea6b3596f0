/**
 * GraphQL's side of the operation context: a resolver's arguments → an `OperationRequest`, run through the same
 * pipeline as REST (`executeOperation`: parameters, access rules, providers, filters, pagination, validation,
 * processors); errors become GraphQL errors with `extensions.status` (and `extensions.violations`).
 */
import type { ApiError } from '../errors.js';
import type { ItemId, OperationMetadata, ToOneFieldMetadata } from '../metadata/types.js';
import type { OperationContext, OperationRequest, Runtime } from '../pipeline/operation-context.js';
import { executeOperation } from '../pipeline/run-operation.js';
import { runInOperationSpan } from '../telemetry/stage-spans.js';
import { isTracing } from '../telemetry/tracer.js';
import type { QueryParameters } from '../metadata/types.js';
import { type ErrorLog, logServiceError, toApiError } from '../response/render-error.js';
import type { Caller } from '../security/access.js';
import { GraphQLFailure } from './graphql-failure.js';
import type { GraphQLRequestScope } from './request-scope.js';
import type { PageRequest, StateLogger } from '../metadata/types.js';

/**
 * What every resolver gets: the caller (authenticated once per request), the HTTP request's headers, address, id and
 * logger (handed to providers, processors and hooks as REST hands them), and per-request loaders.
 */
export interface GraphQLRequestContext {
  readonly runtime: Runtime;
  readonly caller: Caller;
  /** A bad token: every operation of the request answers it (401). */
  readonly callerError: ApiError | undefined;
  /** The request's logger (its lines carry the request id). */
  readonly log: ErrorLog & StateLogger;
  /** The GraphQL call's HTTP request headers. */
  readonly headers?: Readonly<Record<string, string | string[] | undefined>>;
  /** The client's address. */
  readonly ip?: string;
  /** The HTTP request's id. */
  readonly requestId?: string;
  /** The HTTP request's origin (`http://host:port`), for the absolute IRIs of Mercure topics. */
  readonly origin?: string;
  /** The request's loaders, joined items and plans (`request-scope.ts`). */
  readonly scope: GraphQLRequestScope;
}

/** An error as GraphQL clients of API Platform read it: the message, `extensions.status`, violations when any. */
export function toGraphQLError(thrown: unknown, log: GraphQLRequestContext['log']): Error {
  const rendered = toApiError(thrown);
  logServiceError(log, thrown, rendered);
  const { error } = rendered;
  const extensions: Record<string, unknown> = { status: error.status, code: error.code };
  if (error.violations)
    extensions.violations = error.violations.map(({ propertyPath, message, code }) => ({
      propertyPath,
      message,
      code,
    }));
  return new GraphQLFailure(error.message, extensions, error.status);
}

/** The HTTP status a GraphQL error carries (`extensions.status`), if any. */
export const readStatus = (error: unknown): number | undefined =>
  (error as { extensions?: { status?: number } } | null)?.extensions?.status;

export interface Execution {
  readonly operation: OperationMetadata;
  /**
   * The item's id; null when the client's IRI names no item of the resource (the pipeline answers it as a missing
   * item).
   */
  readonly id?: ItemId | null;
  /** The URI template's variables other than `{id}` (a custom operation's `{slug}`), as the client gave them. */
  readonly variables?: Readonly<Record<string, string>>;
  readonly query?: QueryParameters;
  readonly body?: unknown;
  readonly page?: PageRequest | null;
  /** A Relay window, read by the pipeline's parameters stage (after an anonymous caller's access rule). */
  readonly window?: OperationRequest['window'];
  /** The to-one relations the query selects on a collection's items (see `selected-relations.ts`). */
  readonly embed?: readonly ToOneFieldMetadata[];
}

/** Runs an operation for a resolver; throws a GraphQL error when the pipeline refuses. */
export async function execute(context: GraphQLRequestContext, execution: Execution): Promise<OperationContext> {
  if (context.callerError) throw toGraphQLError(context.callerError, context.log);
  const { operation } = execution;
  const { variables } = execution;
  // An IRI of no item: an id no item can have, so the parameters stage answers it as a missing one.
  const id = execution.id === null ? '' : execution.id === undefined ? undefined : String(execution.id);
  const request: OperationRequest = {
    uriVariables: variables ? (id === undefined ? variables : { ...variables, id }) : id === undefined ? {} : { id },
    query: execution.query ?? {},
    rawQuery: '',
    path: operation.uriTemplate,
    body: execution.body,
    contentType:
      execution.body === undefined
        ? undefined
        : operation.kind === 'patch'
          ? 'application/merge-patch+json'
          : 'application/json',
    accept: 'application/json',
    origin: context.origin ?? '',
    authorization: undefined,
    method: operation.method,
    caller: context.caller,
    client: { headers: context.headers ?? {}, ip: context.ip ?? '', id: context.requestId ?? '', log: context.log },
    ...(execution.page !== undefined ? { page: execution.page } : {}),
    ...(execution.window ? { window: execution.window } : {}),
    ...(execution.embed ? { embed: execution.embed } : {}),
  };
  try {
    // Traced, one span per operation the query runs (a query can run several), over its stages' spans.
    if (isTracing())
      return await runInOperationSpan(operation, () => executeOperation(context.runtime, operation, request));
    return await executeOperation(context.runtime, operation, request);
  } catch (error) {
    throw toGraphQLError(error, context.log);
  }
}
