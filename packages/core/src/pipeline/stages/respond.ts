/**
 * Stages 10 and 11, serialize and respond. Reads `context.data` or `context.collection`; returns the status, the
 * headers (Content-Type, Location on create) and the normalized body (JSON-LD or plain JSON).
 */
import { renderCollection } from '../../serializer/hydra/collection.js';
import { iriOf } from '../../serializer/iri.js';
import { MEDIA_TYPES } from '../../serializer/vocabulary.js';
import type { OperationContext, OperationResponse } from '../operation-context.js';

export function respond(context: OperationContext): OperationResponse {
  const { operation, resource, runtime, format } = context;
  if (!operation.stages.serialize) return { status: operation.status, headers: {}, body: undefined };

  const headers: Record<string, string> = { 'content-type': `${MEDIA_TYPES[format]}; charset=utf-8` };
  if (context.collection) {
    const body = renderCollection({
      normalizer: runtime.normalizer,
      resource,
      contextIri: `${runtime.registry.prefix}/contexts/${resource.name}`,
      page: context.collection,
      request: { path: context.request.path, rawQuery: context.request.rawQuery, page: context.page },
      pagination: operation.pagination,
      format,
    });
    return { status: operation.status, headers, body };
  }
  const data = context.data!;
  if (operation.status === 201) headers.location = iriOf(resource, data.id!);
  return { status: operation.status, headers, body: runtime.normalizer.document(resource, data, format) };
}
