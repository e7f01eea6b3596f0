/**
 * Pagination of collection reads: which page the client asked for, checked and clamped, from the settings
 * (global → client). Invalid values are a 400 naming the parameter.
 */
import { ApiError } from '../errors.js';
import type { PageRequest } from '../state/contracts.js';

export interface PaginationOptions {
  /** Collections are paginated (default true). */
  readonly enabled: boolean;
  /** Clients may turn pagination off and on with `?pagination=false|true` (default true). */
  readonly clientEnabled: boolean;
  /** Clients may choose the page size with `?itemsPerPage=` (default true). */
  readonly clientItemsPerPage: boolean;
  /** The page size (default 10). */
  readonly itemsPerPage: number;
  /** The largest page size a client may ask for; larger values are clamped (default 100). */
  readonly maximumItemsPerPage: number;
  /** Parameter names (defaults `page`, `itemsPerPage`, `pagination`). */
  readonly pageParameterName: string;
  readonly itemsPerPageParameterName: string;
  readonly enabledParameterName: string;
}

export const DEFAULT_PAGINATION: PaginationOptions = Object.freeze({
  enabled: true,
  clientEnabled: true,
  clientItemsPerPage: true,
  itemsPerPage: 10,
  maximumItemsPerPage: 100,
  pageParameterName: 'page',
  itemsPerPageParameterName: 'itemsPerPage',
  enabledParameterName: 'pagination',
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
  if (!/^-?[0-9]+$/.test(raw)) throw new ApiError('INVALID_PARAMETER', `Query parameter "${name}" must be an integer, "${raw}" given.`);
  if (!Number.isSafeInteger(Number(raw))) throw new ApiError('INVALID_PARAMETER', `Query parameter "${name}" is too large.`);
  return Number(raw);
}

/** The page to read, or null when pagination is off for this request. */
export function resolvePage(options: PaginationOptions, query: Query): PageRequest | null {
  let enabled = options.enabled;
  if (options.clientEnabled) {
    const toggle = single(query, options.enabledParameterName);
    if (toggle !== undefined) {
      if (!['true', 'false', '1', '0'].includes(toggle)) {
        throw new ApiError('INVALID_PARAMETER', `Query parameter "${options.enabledParameterName}" must be "true" or "false", "${toggle}" given.`);
      }
      enabled = toggle === 'true' || toggle === '1';
    }
  }
  if (!enabled) return null;

  const page = integer(query, options.pageParameterName) ?? 1;
  if (page < 1) throw new ApiError('INVALID_PARAMETER', `Page should not be less than 1 (query parameter "${options.pageParameterName}").`);
  let itemsPerPage = options.itemsPerPage;
  if (options.clientItemsPerPage) {
    const asked = integer(query, options.itemsPerPageParameterName);
    if (asked !== undefined) {
      if (asked < 0) throw new ApiError('INVALID_PARAMETER', `Limit should not be less than 0 (query parameter "${options.itemsPerPageParameterName}").`);
      itemsPerPage = Math.min(asked, options.maximumItemsPerPage);
    }
  }
  const offset = (page - 1) * itemsPerPage;
  if (!Number.isSafeInteger(offset) || offset > Number.MAX_SAFE_INTEGER / 2) {
    throw new ApiError('INVALID_PARAMETER', `Query parameter "${options.pageParameterName}" is too large.`);
  }
  return { page, itemsPerPage, offset };
}

/** The number of the last page (at least 1). */
export const lastPageOf = (totalItems: number, itemsPerPage: number): number =>
  itemsPerPage <= 0 ? 1 : Math.max(1, Math.ceil(totalItems / itemsPerPage));
