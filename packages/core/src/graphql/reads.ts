/**
 * Reads for resolvers, through the pipeline (`execute`): an item (null when missing, as API Platform answers), and a
 * collection's page, with the to-one relations the query selects on its items joined to the page's read when the
 * state can (the items joined are kept for the request, so its loaders read only the others).
 */
import type { GraphQLResolveInfo } from 'graphql';
import type { OperationMetadata, ResourceMetadata } from '../metadata/types.js';
import type { OperationContext } from '../pipeline/operation-context.js';
import type { Entity } from '../metadata/types.js';
import { type Execution, execute, type GraphQLRequestContext, readStatus } from './execute.js';
import { findSelectedToOneRelations } from './selected-relations.js';

/** An item, or null when missing; anything else (401, 403) is an error. */
export async function readItemOrNull(context: GraphQLRequestContext, execution: Execution): Promise<Entity | null> {
  return (await resolveMissingAsNull(execute(context, execution)))?.data ?? null;
}

/** A read that names no item (a missing one, or an IRI of none) is null, as a missing item is. */
export async function resolveMissingAsNull<T>(read: Promise<T>): Promise<T | null> {
  try {
    return await read;
  } catch (error) {
    if (readStatus(error) === 404) return null;
    throw error;
  }
}

/**
 * A collection's page for a resolver. `info` names the selection whose to-one relations may be joined (null for an
 * output shape's values, which have none); `remembers`: the items remember the operation (its groups are not the item
 * GET's).
 */
export async function readCollection(
  context: GraphQLRequestContext,
  execution: Execution,
  resource: ResourceMetadata,
  info: GraphQLResolveInfo | null,
  remembers: boolean,
): Promise<OperationContext> {
  const embed = info && findSelectedToOneRelations(resource, info);
  const result = await execute(context, embed ? { ...execution, embed } : execution);
  const { items, related } = result.collection!;
  if (remembers) rememberAll(context, items, execution.operation);
  if (related) context.scope.keepJoined(related);
  return result;
}

function rememberAll(context: GraphQLRequestContext, items: readonly Entity[], operation: OperationMetadata): void {
  for (const item of items) context.scope.remember(item, operation);
}
