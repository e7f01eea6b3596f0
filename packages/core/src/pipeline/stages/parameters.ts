/**
 * Stage 2, parameters. Reads the URI variables and the query string; writes `context.id`, `context.page` and the
 * parsed `context.filters`. Throws 404 for an id that cannot exist (not a positive integer in range), 400 for invalid
 * pagination or filter values.
 */
import { ApiError } from '../../errors.js';
import { defineFilter } from '../../query/filter.js';
import { resolvePage } from '../../query/pagination.js';
import { parseId } from '../../serializer/iri.js';
import { findNul } from '../../serializer/nul-character.js';
import type { OperationContext } from '../operation-context.js';

export function parseParameters(context: OperationContext): void {
  const { operation, request } = context;
  const nul = findNul(request.query);
  if (nul !== undefined) throw new ApiError('INVALID_PARAMETER', `Query parameter "${nul.split('[')[0]}" must not contain the NUL character.`);
  if (operation.collection) {
    for (const step of operation.subresource ?? []) {
      const parentId = parseId(request.uriVariables[step.variable] ?? '');
      if (parentId === undefined) throw new ApiError('ITEM_NOT_FOUND', 'Not Found');
      context.parentIds.push(parentId);
    }
    if (request.page !== undefined) context.page = request.page;
    else if (operation.pagination) context.page = resolvePage(operation.pagination, request.query);
    if (operation.method === 'GET') {
      const narrow = context.resource.collectionFilter;
      if (narrow) {
        const caller = context.caller;
        context.filters.push({ filter: defineFilter({ describe: () => [], parse: () => true, apply: (query) => narrow(query, caller) }), parsed: true });
      }
      for (const filter of context.resource.filters) {
        const parsed = filter.parse(request.query, context.resource);
        if (parsed !== undefined) context.filters.push({ filter, parsed });
      }
    }
    return;
  }
  const id = parseId(request.uriVariables.id ?? '');
  if (id === undefined) throw new ApiError('ITEM_NOT_FOUND', 'Not Found');
  context.id = id;
}
