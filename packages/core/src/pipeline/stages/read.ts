/**
 * Stage 5, read. Asks the operation's state provider for the item (`context.previous`) or the page
 * (`context.collection`). Throws 404 when the item does not exist (or what the authorize stage set for that case).
 */
import { ApiError } from '../../errors.js';
import type { CollectionPage, Entity, ToManyFieldMetadata, ToOneFieldMetadata } from '../../metadata/types.js';
import type { StageContext } from '../operation-context.js';
import { planResponse } from '../response-plan.js';
import { provide } from '../../state/compose.js';
import { createStateContext } from '../state-context.js';

/**
 * The to-one relations a collection read may join to its page: over HTTP those its response embeds (the response
 * plan), for GraphQL those the query selects (the transport names them). Item reads join nothing.
 */
function embedOf(context: StageContext<'read'>): readonly ToOneFieldMetadata[] | undefined {
  const { operation } = context;
  if (!operation.collection) return undefined;
  if (context.serializes && operation.stages.serialize)
    return context.runtime.normalizer.joinable(planResponse(context));
  return context.request.embed;
}

export async function read(context: StageContext<'read'>): Promise<void> {
  const { runtime, operation } = context;
  const parents = operation.subresource?.map((step, index) => {
    const parent = runtime.registry.resource(step.resource);
    const field = parent.fieldsByName.get(step.field) as ToManyFieldMetadata;
    return { resource: parent, field, id: context.parentIds[index]! };
  });
  const result = await provide(
    runtime.providers.get(operation)!,
    createStateContext(context, context.page, context.filters, parents, embedOf(context)),
  );
  if (operation.collection) {
    // A subresource whose parent is missing is a 404, not an empty list.
    if (!result) throw new ApiError('ITEM_NOT_FOUND', 'Not Found');
    context.collection = result as CollectionPage;
    return;
  }
  if (!result) throw context.missingItem ?? new ApiError('ITEM_NOT_FOUND', 'Not Found');
  context.previous = result as Entity;
  context.data = result as Entity;
}
