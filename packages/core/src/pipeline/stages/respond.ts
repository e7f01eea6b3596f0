/**
 * Stages 10 and 11, serialize and respond. Reads `context.data` or `context.collection`; normalizes them by the
 * operation's read groups (loading embedded items in batches); returns the status, the headers (Content-Type,
 * Location on create) and the body (JSON-LD or plain JSON).
 */
import { renderCollection } from '../../serializer/hydra/collection.js';
import { iriOf } from '../../serializer/iri.js';
import { MEDIA_TYPES } from '../../serializer/vocabulary.js';
import { responsePlan } from '../response-plan.js';
import type { OperationContext, OperationResponse } from '../operation-context.js';

export async function respond(context: OperationContext): Promise<OperationResponse> {
  const { operation, resource, runtime, format } = context;
  if (!operation.stages.serialize) return { status: operation.status, headers: {}, body: undefined };

  const headers: Record<string, string> = { 'content-type': `${MEDIA_TYPES[format]}; charset=utf-8` };
  const { normalizer } = runtime;
  const plan = responsePlan(context);
  if (context.collection) {
    const loaded = await normalizer.load(plan, context.collection.items, context.collection.related);
    const body = renderCollection({
      normalizer,
      plan,
      loaded,
      resource,
      contextIri: `${runtime.registry.prefix}/contexts/${resource.name}`,
      page: context.collection,
      request: { path: context.request.path, rawQuery: context.request.rawQuery, page: context.page },
      pagination: operation.pagination,
      format,
      caller: context.caller,
    });
    return { status: operation.status, headers, body };
  }
  const data = context.data!;
  if (operation.status === 201) headers.location = iriOf(resource, data.id!);
  const loaded = await normalizer.load(plan, [data]);
  return { status: operation.status, headers, body: normalizer.document(plan, data, format, loaded, context.caller) };
}
