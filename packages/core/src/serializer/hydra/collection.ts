/**
 * A collection response: `hydra:Collection` with `hydra:totalItems`, `hydra:member`, `hydra:view` and
 * `hydra:search`, as API Platform 3 renders them. The view links keep the request's other query parameters in their
 * order (page last) for page numbers; partial pagination has no first/last (no count); cursor pagination links with
 * `id[lt]` / `id[gt]`. Plain JSON gets a bare array.
 */
import type { CollectionPage, PageRequest, PaginationMetadata, ResourceMetadata } from '../../metadata/types.js';
import { CURSOR_PARAMETERS, computeLastPage } from '../../query/pagination.js';
import type { Caller } from '../../security/access.js';
import type { LoadedItems, NormalizationPlan, Normalizer } from '../normalize.js';
import { HYDRA, type OutputFormat } from '../vocabulary.js';
import { buildSearch } from './search.js';

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

/** A rendered collection: the body, and its JSON when rendering made it (see `renderCollection`). */
export interface RenderedCollection {
  readonly body: unknown;
  readonly json?: string;
}

const SEARCH_KEY = JSON.stringify(HYDRA.search);

/**
 * A collection's body. A Hydra page's search template comes last and is the same for every page of the collection
 * path: its JSON, made once (`buildSearch`), is appended to that of the rest of the body, so `json` is exactly
 * `JSON.stringify(body)` at a fraction of its cost.
 */
export function renderCollection(options: {
  normalizer: Normalizer;
  plan: NormalizationPlan;
  loaded: LoadedItems;
  resource: ResourceMetadata;
  contextIri: string;
  page: CollectionPage;
  request: CollectionRequest;
  pagination: PaginationMetadata | null;
  format: OutputFormat;
  caller: Caller;
}): RenderedCollection {
  const { normalizer, resource, page, request, format } = options;
  const members = page.items.map((item) => normalizer.item(options.plan, item, format, options.loaded, options.caller));
  if (format === 'json') return { body: members };

  const body: Record<string, unknown> = {
    '@context': options.contextIri,
    '@id': request.path,
    '@type': HYDRA.collection,
  };
  if (page.totalItems !== undefined) body[HYDRA.totalItems] = page.totalItems;
  body[HYDRA.member] = members;
  const view = options.pagination ? renderView(request, page, options.pagination) : undefined;
  if (view) body[HYDRA.view] = view;
  const search = buildSearch(resource, request.path);
  if (!search) return { body };
  // The body is an object: its JSON ends with the `}` the search template goes before.
  const json = `${JSON.stringify(body).slice(0, -1)},${SEARCH_KEY}:${search.json}}`;
  body[HYDRA.search] = search.template;
  return { body, json };
}

function renderView(
  request: CollectionRequest,
  result: CollectionPage,
  pagination: PaginationMetadata,
): Record<string, string> | undefined {
  const skipped = new Set([pagination.pageParameterName, CURSOR_PARAMETERS.greaterThan, CURSOR_PARAMETERS.lessThan]);
  const kept: string[] = [];
  let hasOtherParameters = false;
  for (const [key, value] of new URLSearchParams(request.rawQuery)) {
    if (
      request.page?.cursor
        ? key === CURSOR_PARAMETERS.greaterThan || key === CURSOR_PARAMETERS.lessThan
        : key === pagination.pageParameterName
    )
      continue;
    kept.push(`${encode(key)}=${encode(value)}`);
    if (!skipped.has(key) && key !== pagination.enabledParameterName) hasOtherParameters = true;
  }
  const iri = (extra?: string): string => {
    const parts = extra === undefined ? kept : [...kept, extra];
    return parts.length === 0 ? request.path : `${request.path}?${parts.join('&')}`;
  };
  const view = (id: string): Record<string, string> => ({ '@id': id, '@type': HYDRA.partialCollectionView });

  const { page } = request;
  if (!page) return hasOtherParameters ? view(iri()) : undefined;

  if (page.cursor) return renderCursorView(request.rawQuery, page.cursor, result, iri, view);

  const pageIri = (n: number) => iri(`${pagination.pageParameterName}=${n}`);
  if (page.partial) {
    const partial = view(pageIri(page.page));
    if (page.page > 1) partial[HYDRA.previous] = pageIri(page.page - 1);
    if (result.hasMore) partial[HYDRA.next] = pageIri(page.page + 1);
    return partial;
  }
  const last = computeLastPage(result.totalItems ?? 0, page.itemsPerPage);
  if (last === 1 && page.page === 1 && !hasOtherParameters) return undefined;
  const numbered = view(pageIri(page.page));
  numbered[HYDRA.first] = pageIri(1);
  numbered[HYDRA.last] = pageIri(last);
  if (page.page > 1) numbered[HYDRA.previous] = pageIri(page.page - 1);
  if (page.page < last) numbered[HYDRA.next] = pageIri(page.page + 1);
  return numbered;
}

function renderCursorView(
  rawQuery: string,
  cursor: NonNullable<PageRequest['cursor']>,
  result: CollectionPage,
  iri: (extra?: string) => string,
  view: (id: string) => Record<string, string>,
): Record<string, string> {
  // Forward is the resource's cursor direction: towards smaller ids when it is descending.
  const forward = cursor.direction === 'desc' ? 'lessThan' : 'greaterThan';
  const backward = forward === 'lessThan' ? 'greaterThan' : 'lessThan';
  const current = view(iri(cursorParameterOf(rawQuery)));
  const first = result.items[0]?.id;
  const last = result.items[result.items.length - 1]?.id;
  if (first === undefined || last === undefined) return current;
  const readingBackward = cursor[backward] !== undefined && cursor[forward] === undefined;
  const hasPrevious = readingBackward ? result.hasMore === true : cursor[forward] !== undefined;
  const hasNext = readingBackward || result.hasMore === true;
  if (hasPrevious) current[HYDRA.previous] = iri(`${encode(CURSOR_PARAMETERS[backward])}=${first}`);
  if (hasNext) current[HYDRA.next] = iri(`${encode(CURSOR_PARAMETERS[forward])}=${last}`);
  return current;
}

/** The cursor parameters of the request, re-encoded, to make the view's own `@id`. */
function cursorParameterOf(rawQuery: string): string | undefined {
  const parts: string[] = [];
  for (const [key, value] of new URLSearchParams(rawQuery)) {
    if (key === CURSOR_PARAMETERS.greaterThan || key === CURSOR_PARAMETERS.lessThan)
      parts.push(`${encode(key)}=${encode(value)}`);
  }
  return parts.length === 0 ? undefined : parts.join('&');
}
