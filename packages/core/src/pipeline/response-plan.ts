/**
 * The normalization plan of an operation's response for one request (its read groups, which may depend on the
 * caller): computed once, by the first stage that needs it (read, to join embedded items; respond, to serialize).
 */
import type { NormalizationPlan } from '../serializer/normalize.js';
import { resolveActiveGroups } from './groups.js';
import type { RequestScope } from './operation-context.js';

export function planResponse(context: RequestScope): NormalizationPlan {
  // An output shape is sent with its own fields, else the resource's.
  return (context.plan ??= context.runtime.normalizer.plan(
    context.operation.output ?? context.resource,
    resolveActiveGroups(context.operation.normalizationGroups, context),
  ));
}
