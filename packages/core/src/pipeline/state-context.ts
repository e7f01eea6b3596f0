/**
 * What providers, processors and hooks are told about a request: the `StateContext` made from the operation
 * context. The caller, the request and the logger are fixed for the request; the rest is what the stages found.
 */
import type { StateContext, StateRequest } from '../metadata/types.js';
import { SILENT_LOGGER } from '../state/compose.js';
import type { After, OperationRequest } from './operation-context.js';

const NO_HEADERS = Object.freeze({});

/**
 * The request as providers, processors and hooks see it: one small object per read or write, whose parts are looked
 * up only when asked for (most providers never ask, and the client's address is computed on access).
 */
class RequestView implements StateRequest {
  constructor(private readonly source: OperationRequest) {}
  get method(): string {
    return this.source.method;
  }
  get path(): string {
    return this.source.path;
  }
  get headers(): StateRequest['headers'] {
    return this.source.client?.headers ?? NO_HEADERS;
  }
  get ip(): string {
    return this.source.client?.ip ?? '';
  }
  get id(): string {
    return this.source.client?.id ?? '';
  }
  /** A plain copy, for logs and `JSON.stringify` (the getters are not own properties). */
  toJSON(): StateRequest {
    return { method: this.method, path: this.path, headers: this.headers, ip: this.ip, id: this.id };
  }
}

const NONE: readonly never[] = Object.freeze([]);

/**
 * The `StateContext` of a request: what every stage gives alike, and for collection reads the page, the filters, the
 * subresource parents and the relations to join (none for item reads and writes). One object, made once.
 */
export function createStateContext(
  context: After<'parameters'>,
  page: StateContext['page'] = null,
  filters: StateContext['filters'] = NONE,
  parents: StateContext['parents'] = NONE,
  embed?: StateContext['embed'],
): StateContext {
  return {
    operation: context.operation,
    resource: context.resource,
    caller: context.caller,
    request: new RequestView(context.request),
    logger: context.request.client?.log ?? SILENT_LOGGER,
    uriVariables: context.request.uriVariables,
    id: context.id,
    db: context.runtime.database.knex,
    execute: context.runtime.execute,
    toRow: context.runtime.toRow,
    page,
    filters,
    parents,
    embed,
  };
}
