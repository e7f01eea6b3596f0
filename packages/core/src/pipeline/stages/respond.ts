/**
 * Stage 12, serialize and respond. Reads `context.data` or `context.collection`; normalizes them by the
 * operation's read groups (loading embedded items in batches); returns the status, the headers (Content-Type,
 * Location on create), the caching headers when HTTP caching is on (`Cache-Control` and `Vary` from
 * `cache-policy.ts`; on responses shared caches may keep, the cache tags of `cache-tags.ts`), and the body (JSON-LD
 * or plain JSON).
 */
import type { LoadedItems } from '../../serializer/normalize.js';
import { renderCollection } from '../../serializer/hydra/collection.js';
import { buildIri } from '../../metadata/iri.js';
import { MEDIA_TYPES } from '../../serializer/vocabulary.js';
import { planResponse } from '../response-plan.js';
import type { OperationContext, OperationResponse } from '../operation-context.js';
import { resolveCachePolicy } from '../cache-policy.js';
import { readsDeletedItems } from '../../query/filters/soft-delete-filter.js';
import { collectCacheTags, collectFilterTags, limitCacheTags } from '../cache-tags.js';

const CONTENT_TYPES = {
  jsonld: `${MEDIA_TYPES.jsonld}; charset=utf-8`,
  json: `${MEDIA_TYPES.json}; charset=utf-8`,
} as const;

export function respond(context: OperationContext): OperationResponse | Promise<OperationResponse> {
  const { operation, resource, runtime, format } = context;
  const httpCache = runtime.httpCache;
  const softDelete = resource.softDelete;
  const policy =
    httpCache &&
    resolveCachePolicy(httpCache.settings, operation, {
      authorization: context.request.authorization,
      // Deleted items are listed only under the `list` rule: never shared.
      ruled: softDelete !== null && readsDeletedItems(softDelete.filter, context.filters),
    });
  if (!operation.stages.serialize)
    return {
      status: operation.status,
      headers: policy ? { 'cache-control': policy.cacheControl, vary: policy.vary } : {},
      body: undefined,
    };

  const headers: Record<string, string> = { 'content-type': CONTENT_TYPES[format] };
  if (policy) {
    headers['cache-control'] = policy.cacheControl;
    headers.vary = policy.vary;
  }
  const { normalizer } = runtime;
  const plan = planResponse(context);
  const { collection } = context;
  if (!collection && !context.data)
    throw new Error(`The operation ${operation.name} has nothing to send: its provider or processor returned no item.`);
  // The items embedded are loaded first, when there are any: then, and only then, there is something to wait for.
  const render = (loaded: LoadedItems): OperationResponse => {
    if (policy?.shared) {
      // An output shape's values name no item: its tag is its resource's collection, which every write of it purges.
      const tags = new Set(collection || operation.output ? [resource.collectionPath] : []);
      if (!operation.output) collectCacheTags(plan, collection ? collection.items : [context.data!], loaded, tags);
      if (collection && context.filters.length > 0) collectFilterTags(runtime.registry, resource, tags);
      headers[httpCache!.settings.tagHeader] = limitCacheTags(tags, {
        separator: httpCache!.settings.tagSeparator,
        maxBytes: httpCache!.settings.maxTagBytes,
        resources: runtime.registry.resources,
      });
    }
    if (collection) {
      const { body, json } = renderCollection({
        normalizer,
        plan,
        loaded,
        resource,
        contextIri: `${runtime.registry.prefix}/contexts/${resource.name}`,
        page: collection,
        request: { path: context.request.path, rawQuery: context.request.rawQuery, page: context.page },
        pagination: operation.pagination,
        format,
        caller: context.caller,
      });
      return { status: operation.status, headers, body, json };
    }
    const data = context.data!;
    if (operation.output)
      return {
        status: operation.status,
        headers,
        body: normalizer.shapeDocument(plan, data, format, context.request.path, loaded, context.caller),
      };
    if (operation.status === 201) headers.location = buildIri(resource, data.id!);
    return { status: operation.status, headers, body: normalizer.document(plan, data, format, loaded, context.caller) };
  };
  const loaded = collection
    ? normalizer.load(plan, collection.items, collection.related)
    : normalizer.load(plan, [context.data!]);
  return loaded instanceof Promise ? loaded.then(render) : render(loaded);
}
