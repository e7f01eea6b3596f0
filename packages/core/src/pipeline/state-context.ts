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

/** The parts of a `StateContext` every stage gives alike. */
export function baseStateContext(context: After<'parameters'>): Omit<StateContext, 'page' | 'filters' | 'parents' | 'embed'> {
  return {
    operation: context.operation,
    resource: context.resource,
    caller: context.caller,
    request: stateRequest(context),
    logger: context.request.log ?? SILENT,
    uriVariables: context.request.uriVariables,
    id: context.id,
    db: context.runtime.database.knex,
  };
}
