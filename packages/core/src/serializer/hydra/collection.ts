/**
 * A collection response: `hydra:Collection` with `hydra:totalItems`, `hydra:member` and, as API Platform 3 renders
 * it, `hydra:view` (`hydra:PartialCollectionView` with first / last / previous / next page IRIs that keep the
 * request's other query parameters in their order, `page` last). Plain JSON gets a bare array.
 */
import type { ResourceMetadata } from '../../metadata/types.js';
import { lastPageOf, type PaginationOptions } from '../../query/pagination.js';
import type { CollectionPage, PageRequest } from '../../state/contracts.js';
import type { Normalizer } from '../normalize.js';
import { HYDRA, type OutputFormat } from '../vocabulary.js';

export interface CollectionRequest {
  /** The request path without query string: `/api/books`. */
  readonly path: string;
  /** The raw query string, without `?`. */
  readonly rawQuery: string;
  readonly page: PageRequest | null;
}

/** RFC 3986 encoding, as API Platform writes view IRIs (`[` → `%5B`, `/` → `%2F`, space → `%20`). */
const encode = (value: string): string =>
  encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

export function renderCollection(options: {
  normalizer: Normalizer;
  resource: ResourceMetadata;
  contextIri: string;
  page: CollectionPage;
  request: CollectionRequest;
  pagination: PaginationOptions;
  format: OutputFormat;
}): unknown {
  const { normalizer, resource, page, request, format } = options;
  const members = page.items.map((item) => normalizer.item(resource, item, format));
  if (format === 'json') return members;

  const body: Record<string, unknown> = {
    '@context': options.contextIri,
    '@id': request.path,
    '@type': HYDRA.collection,
    [HYDRA.totalItems]: page.totalItems,
    [HYDRA.member]: members,
  };
  const view = renderView(request, page.totalItems, options.pagination);
  if (view) body[HYDRA.view] = view;
  return body;
}

function renderView(request: CollectionRequest, totalItems: number, pagination: PaginationOptions): Record<string, string> | undefined {
  const pageName = pagination.pageParameterName;
  const kept: string[] = [];
  let hasOtherParameters = false;
  for (const [key, value] of new URLSearchParams(request.rawQuery)) {
    if (key === pageName) continue;
    kept.push(`${encode(key)}=${encode(value)}`);
    if (key !== pagination.enabledParameterName) hasOtherParameters = true;
  }
  const iri = (page?: number): string => {
    const parts = page === undefined ? kept : [...kept, `${pageName}=${page}`];
    return parts.length === 0 ? request.path : `${request.path}?${parts.join('&')}`;
  };

  const { page } = request;
  if (!page) return hasOtherParameters ? { '@id': iri(), '@type': HYDRA.partialCollectionView } : undefined;
  const last = lastPageOf(totalItems, page.itemsPerPage);
  if (last === 1 && page.page === 1 && !hasOtherParameters) return undefined;
  const view: Record<string, string> = {
    '@id': iri(page.page),
    '@type': HYDRA.partialCollectionView,
    [HYDRA.first]: iri(1),
    [HYDRA.last]: iri(last),
  };
  if (page.page > 1) view[HYDRA.previous] = iri(page.page - 1);
  if (page.page < last) view[HYDRA.next] = iri(page.page + 1);
  return view;
}
