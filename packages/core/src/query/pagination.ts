/**
 * Pagination of collection reads: which page the client asked for, checked and clamped, from the operation's
 * resolved settings (global → resource → operation) and the client's parameters. Invalid values are a 400 naming
 * the parameter. Three kinds: page numbers with a count, partial (no count), and cursor (keyset on the id).
 */
import { ApiError } from '../errors.js';
import { INTEGER_IDENTIFIER, parseItemId } from '../metadata/identifier.js';
import type {
  IdentifierMetadata,
  ItemId,
  PageRequest,
  PaginationMetadata,
  PaginationOptions,
} from '../metadata/types.js';

/** The pagination settings in force where the plugin's `pagination` option sets none. */
export const DEFAULT_PAGINATION: PaginationOptions = Object.freeze({
  enabled: true,
  clientEnabled: true,
  clientItemsPerPage: true,
  itemsPerPage: 10,
  maximumItemsPerPage: 100,
  partial: false,
  clientPartial: false,
  pageParameterName: 'page',
  itemsPerPageParameterName: 'itemsPerPage',
  enabledParameterName: 'pagination',
  partialParameterName: 'partial',
});

type Query = Readonly<Record<string, string | string[] | undefined>>;

function single(query: Query, name: string): string | undefined {
  const value = query[name];
  if (Array.isArray(value)) throw new ApiError('INVALID_PARAMETER', `Query parameter "${name}" must be given once.`);
  return value;
}

function integer(query: Query, name: string): number | undefined {
  const raw = single(query, name);
  if (raw === undefined) return undefined;
  if (!/^-?[0-9]+$/.test(raw))
    throw new ApiError('INVALID_PARAMETER', `Query parameter "${name}" must be an integer, "${raw}" given.`);
  if (!Number.isSafeInteger(Number(raw)))
    throw new ApiError('INVALID_PARAMETER', `Query parameter "${name}" is too large.`);
  return Number(raw);
}

function toggle(query: Query, name: string, allowed: boolean, fallback: boolean): boolean {
  if (!allowed) return fallback;
  const raw = single(query, name);
  if (raw === undefined) return fallback;
  if (!['true', 'false', '1', '0'].includes(raw))
    throw new ApiError('INVALID_PARAMETER', `Query parameter "${name}" must be "true" or "false", "${raw}" given.`);
  return raw === 'true' || raw === '1';
}

/** The cursor parameters of keyset pagination: `id[gt]` and `id[lt]`. */
export const CURSOR_PARAMETERS = { greaterThan: 'id[gt]', lessThan: 'id[lt]' } as const;

/** A keyset cursor: one of the resource's ids (a non-negative integer for integer ids, any UUID for UUIDs). */
function cursorId(query: Query, name: string, identifier: IdentifierMetadata): ItemId | undefined {
  if (identifier.type === 'uuid') {
    const raw = single(query, name);
    if (raw === undefined) return undefined;
    const id = parseItemId(identifier, raw);
    if (id === undefined)
      throw new ApiError('INVALID_PARAMETER', `Query parameter "${name}" must be a UUID, "${raw}" given.`);
    return id;
  }
  const value = integer(query, name);
  if (value !== undefined && value < 0)
    throw new ApiError('INVALID_PARAMETER', `Query parameter "${name}" must not be negative.`);
  return value;
}

/** The page to read, or null when pagination is off for this request. */
export function resolvePage(
  options: PaginationMetadata,
  query: Query,
  identifier: IdentifierMetadata = INTEGER_IDENTIFIER,
): PageRequest | null {
  if (!toggle(query, options.enabledParameterName, options.clientEnabled, options.enabled)) return null;

  let itemsPerPage = options.itemsPerPage;
  if (options.clientItemsPerPage) {
    const asked = integer(query, options.itemsPerPageParameterName);
    if (asked !== undefined) {
      if (asked < 0)
        throw new ApiError(
          'INVALID_PARAMETER',
          `Limit should not be less than 0 (query parameter "${options.itemsPerPageParameterName}").`,
        );
      itemsPerPage = Math.min(asked, options.maximumItemsPerPage);
    }
  }
  if (options.cursor) {
    const cursor = {
      direction: options.cursor.direction,
      greaterThan: cursorId(query, CURSOR_PARAMETERS.greaterThan, identifier),
      lessThan: cursorId(query, CURSOR_PARAMETERS.lessThan, identifier),
    };
    return { page: 1, itemsPerPage, offset: 0, partial: true, cursor };
  }

  const page = integer(query, options.pageParameterName) ?? 1;
  if (page < 1)
    throw new ApiError(
      'INVALID_PARAMETER',
      `Page should not be less than 1 (query parameter "${options.pageParameterName}").`,
    );
  const offset = (page - 1) * itemsPerPage;
  if (offset > Number.MAX_SAFE_INTEGER / 2)
    throw new ApiError('INVALID_PARAMETER', `Query parameter "${options.pageParameterName}" is too large.`);
  const partial = toggle(query, options.partialParameterName, options.clientPartial, options.partial);
  return { page, itemsPerPage, offset, partial, cursor: null };
}

/** The number of the last page (at least 1). */
export const computeLastPage = (totalItems: number, itemsPerPage: number): number =>
  itemsPerPage <= 0 ? 1 : Math.max(1, Math.ceil(totalItems / itemsPerPage));
