/**
 * Stage 12, serialize and respond. Reads `context.data` or `context.collection`; normalizes them by the
 * operation's read groups (loading embedded items in batches); returns the status, the headers (Content-Type,
 * Location on create) and the body (JSON-LD or plain JSON).
 */
import type { LoadedItems } from '../../serializer/normalize.js';
import { renderCollection } from '../../serializer/hydra/collection.js';
import { buildIri } from '../../metadata/iri.js';
import { MEDIA_TYPES } from '../../serializer/vocabulary.js';
import { planResponse } from '../response-plan.js';
import type { OperationContext, OperationResponse } from '../operation-context.js';

export function respond(context: OperationContext): OperationResponse | Promise<OperationResponse> {
  const { operation, resource, runtime, format } = context;
  if (!operation.stages.serialize) return { status: operation.status, headers: {}, body: undefined };

  const headers: Record<string, string> = { 'content-type': `${MEDIA_TYPES[format]}; charset=utf-8` };
  const { normalizer } = runtime;
  const plan = planResponse(context);
  const { collection } = context;
  if (!collection && !context.data)
    throw new Error(`The operation ${operation.name} has nothing to send: its provider or processor returned no item.`);
  // The items embedded are loaded first, when there are any: then, and only then, there is something to wait for.
  const render = (loaded: LoadedItems): OperationResponse => {
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
