/**
 * Stage 2, parameters. Reads the URI variables and the query string; writes `context.id` and `context.page`.
 * Throws 404 for an id that cannot exist (not a positive integer in range), 400 for invalid pagination parameters.
 */
import { ApiError } from '../../errors.js';
import { resolvePage } from '../../query/pagination.js';
import { parseId } from '../../serializer/iri.js';
import type { OperationContext } from '../operation-context.js';

export function parseParameters(context: OperationContext): void {
  const { operation, request } = context;
  if (operation.collection) {
    if (operation.kind === 'getCollection') context.page = resolvePage(context.runtime.pagination, request.query);
    return;
  }
  const id = parseId(request.id ?? '');
  if (id === undefined) throw new ApiError('ITEM_NOT_FOUND', 'Not Found');
  context.id = id;
}
