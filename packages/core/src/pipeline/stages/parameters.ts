/**
 * Stage 3, parameters. Reads the URI variables and the query string; writes `context.id`, `context.page` and the
 * parsed `context.filters`. Throws 404 for an id that cannot exist (not a positive integer in range), 400 for invalid
 * pagination or filter values, and for query strings no filter should have to meet: a value longer than
 * `MAX_QUERY_VALUE_LENGTH`, a parameter given more than `MAX_QUERY_VALUES` times, the NUL character.
 */
import { ApiError } from '../../errors.js';
import type { Condition } from '../../metadata/conditions.js';
import { defineFilter } from '../../query/filter.js';
import { type CursorWindow, computeSpan } from '../../query/cursor-window.js';
import { resolvePage } from '../../query/pagination.js';
import type { PageRequest, PaginationMetadata } from '../../metadata/types.js';
import { parseId } from '../../metadata/iri.js';
import { findNul } from '../../serializer/nul-character.js';
import type { OperationRequest, StageContext } from '../operation-context.js';

/**
 * The longest query parameter value accepted. Longer than any URL a server takes over HTTP (Node's header limit is
 * 16 KiB), and short enough that an escaped pattern stays within SQLite's LIKE / GLOB pattern limit (50,000 bytes).
 */
export const MAX_QUERY_VALUE_LENGTH = 10_000;

/**
 * How often one parameter may be given (`title[]=a&title[]=b`): ORed values past this would make SQL no database plans
 * well.
 */
export const MAX_QUERY_VALUES = 100;

/** Refuses query strings no filter should have to meet: over-long values, a parameter repeated too often, NUL. */
function assertReasonableQuery(query: OperationRequest['query']): void {
  const nul = findNul(query);
  if (nul !== undefined)
    throw new ApiError(
      'INVALID_PARAMETER',
      `Query parameter "${nul.split('[')[0]}" must not contain the NUL character.`,
    );
  for (const [name, value] of Object.entries(query)) {
    const values = Array.isArray(value) ? value : [value];
    const shown = name.length > 100 ? `${name.slice(0, 100)}…` : name;
    if (values.length > MAX_QUERY_VALUES)
      throw new ApiError(
        'INVALID_PARAMETER',
        `Query parameter "${shown}" is given more than ${MAX_QUERY_VALUES} times.`,
      );
    if (
      name.length > MAX_QUERY_VALUE_LENGTH ||
      values.some((v) => typeof v === 'string' && v.length > MAX_QUERY_VALUE_LENGTH)
    ) {
      throw new ApiError(
        'INVALID_PARAMETER',
        `Query parameter "${shown}" is longer than ${MAX_QUERY_VALUE_LENGTH} characters.`,
      );
    }
  }
}

/** The item id of the path (`{id}`); a 404 when it cannot be one. */
function parseItemId(context: StageContext<'parameters'>): void {
  const id = parseId(context.resource, context.request.uriVariables.id ?? '');
  if (id === undefined) throw new ApiError('ITEM_NOT_FOUND', 'Not Found');
  context.id = id;
}

/** A Relay window's page: its offset and limit, within the collection's page sizes. */
function pageOfWindow(pagination: PaginationMetadata, window: CursorWindow, total: number | null): PageRequest {
  const { offset, limit } = computeSpan(window, pagination.itemsPerPage, pagination.maximumItemsPerPage, total);
  return { page: 1, itemsPerPage: limit, offset, partial: false, cursor: null };
}

/** The filter `collectionFilter`'s conditions come through: they were worked out already, with the caller. */
const CALLER_NARROWING = defineFilter<readonly Condition[]>({
  describe: () => [],
  parse: () => undefined,
  conditions: (conditions) => conditions,
});

export function parseParameters(context: StageContext<'parameters'>): void {
  const { operation, request } = context;
  assertReasonableQuery(request.query);
  if (operation.collection) {
    // A custom collection operation under an item (`/authors/{id}/latest`): its provider reads the id.
    if (operation.customName !== null && operation.uriVariables.includes('id')) parseItemId(context);
    for (const step of operation.subresource ?? []) {
      const parentId = parseId(
        context.runtime.registry.resource(step.resource),
        request.uriVariables[step.variable] ?? '',
      );
      if (parentId === undefined) throw new ApiError('ITEM_NOT_FOUND', 'Not Found');
      context.parentIds.push(parentId);
    }
    if (request.window) context.page = pageOfWindow(operation.pagination!, request.window.window, request.window.total);
    else if (request.page !== undefined) context.page = request.page;
    else if (operation.pagination)
      context.page = resolvePage(operation.pagination, request.query, context.resource.identifier);
    if (operation.method === 'GET') {
      const narrow = context.resource.collectionFilter;
      if (narrow) {
        // The caller's narrowing, as the conditions of a filter of its own (the state reads them as any filter's).
        const returned = narrow(context.caller);
        const conditions = returned == null ? [] : Array.isArray(returned) ? returned : [returned as Condition];
        if (conditions.length > 0) context.filters.push({ filter: CALLER_NARROWING, parsed: conditions });
      }
      for (const filter of context.resource.filters) {
        const parsed = filter.parse(request.query, context.resource);
        if (parsed !== undefined) context.filters.push({ filter, parsed });
      }
    }
    return;
  }
  // Custom operations without {id} (`/books/stats`) read no item by id.
  if (operation.uriVariables.includes('id')) parseItemId(context);
}
