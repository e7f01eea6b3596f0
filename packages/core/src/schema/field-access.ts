/**
 * What the documents say about each field of a resource as a whole, over its operations: whether some read
 * operation sends it (through the normalizer's plan for the operation's read groups) and whether some write
 * operation accepts it (through the input schema's `writableFields`). Groups chosen per request by a function cannot
 * be known in advance: such an operation counts as "every readable / writable field".
 */
import type { OperationMetadata, ResourceMetadata } from '../metadata/types.js';
import { type WriteMode, writableFields } from './input-schema.js';
import type { ActiveGroups, NormalizationPlan } from '../serializer/normalize.js';

/** The normalizer's plan for a resource and read groups (`normalizer.plan`). */
export type PlanOf = (resource: ResourceMetadata, groups: ActiveGroups) => NormalizationPlan;

/** The groups the documents use for a declaration: a fixed list as a set; none, or a function, as null (every field). */
export const documentedGroups = (declaration: OperationMetadata['normalizationGroups']): ActiveGroups =>
  declaration === null || typeof declaration === 'function' ? null : new Set(declaration);

/** How an operation applies its body onto the resource's fields, or undefined when it reads none (or a shape). */
export function writeModeOf(operation: OperationMetadata): WriteMode | undefined {
  return operation.writeMode ?? undefined;
}

/** The names of the fields some read operation of the resource sends. */
export function readableFieldNames(resource: ResourceMetadata, planOf: PlanOf): Set<string> {
  const names = new Set<string>();
  for (const operation of resource.operations) {
    if (operation.method !== 'GET') continue;
    for (const field of planOf(resource, documentedGroups(operation.normalizationGroups)).fields) names.add(field.name);
  }
  return names;
}

/** The names of the fields some write operation of the resource accepts. */
export function writableFieldNames(resource: ResourceMetadata): Set<string> {
  const names = new Set<string>();
  for (const operation of resource.operations) {
    const mode = writeModeOf(operation);
    if (!mode) continue;
    for (const field of writableFields(resource, mode, documentedGroups(operation.denormalizationGroups))) names.add(field.name);
  }
  return names;
}
