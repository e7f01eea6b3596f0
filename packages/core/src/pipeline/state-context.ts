/**
 * What providers, processors and hooks are told about a request: the `StateContext` made from the operation
 * context. The caller, the request and the logger are fixed for the request; the rest is what the stages found.
 */
import type { StateContext, StateLogger, StateRequest } from '../state/contracts.js';
import type { After, RequestScope } from './operation-context.js';

/** A logger for requests made without one (tests building an `OperationRequest` by hand). */
const SILENT: StateLogger = { error() {}, warn() {}, info() {}, debug() {} };
const NO_HEADERS = Object.freeze({});

function stateRequest(context: RequestScope): StateRequest {
  const { request } = context;
  return { method: request.method, path: request.path, headers: request.headers ?? NO_HEADERS, ip: request.ip ?? '', id: request.requestId ?? '' };
}

/** What a read is told of a collection; none for item reads and writes. */
export type CollectionScope = Pick<StateContext, 'page' | 'filters' | 'parents' | 'embed'>;

export const NO_COLLECTION: CollectionScope = Object.freeze({ page: null, filters: Object.freeze([]), parents: Object.freeze([]), embed: undefined });

/** The `StateContext` of a request: what every stage gives alike, and the collection's part. One object, made once. */
export function stateContext(context: After<'parameters'>, collection: CollectionScope): StateContext {
  return {
    operation: context.operation,
    resource: context.resource,
    caller: context.caller,
    request: stateRequest(context),
    logger: context.request.log ?? SILENT,
    uriVariables: context.request.uriVariables,
    id: context.id,
    db: context.runtime.database.knex,
    execute: context.runtime.execute,
    page: collection.page,
    filters: collection.filters,
    parents: collection.parents,
    embed: collection.embed,
  };
}
