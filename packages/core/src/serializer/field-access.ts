/**
 * What the documents say about each field of a resource (or shape) as a whole, over its operations: whether some read
 * operation sends it (through the normalizer's plan for the operation's read groups) and whether some write
 * operation accepts it (through the input schema's `listWritableFields`). Groups chosen per request by a function
 * cannot be known in advance: such an operation counts as "every readable / writable field". It lives beside the
 * normalizer whose plans it reads; openapi/ and the Hydra documentation (`hydra/documentation.ts`) ask it.
 */
import type { MetadataRegistry, OperationMetadata, ResourceMetadata } from '../metadata/types.js';
import { type WriteMode, listWritableFields } from '../schema/input-schema.js';
import type { ActiveGroups, NormalizationPlan } from './normalize.js';
import { toFixedGroups } from '../metadata/groups.js';

/** The normalizer's plan for a resource and read groups (`normalizer.plan`). */
export type PlanOf = (resource: ResourceMetadata, groups: ActiveGroups) => NormalizationPlan;

/** How an operation applies its body onto the resource's fields, or undefined when it reads none (or a shape). */
export function readWriteMode(operation: OperationMetadata): WriteMode | undefined {
  return operation.writeMode ?? undefined;
}

/**
 * The names of the fields some read operation of the resource sends (one sending an output shape sends none of them).
 */
export function listReadableFieldNames(resource: ResourceMetadata, planOf: PlanOf): Set<string> {
  const names = new Set<string>();
  for (const operation of resource.operations) {
    if (operation.method !== 'GET' || operation.output) continue;
    for (const field of planOf(resource, toFixedGroups(operation.normalizationGroups)).fields) names.add(field.name);
  }
  return names;
}

/**
 * The names of the fields some write operation of the resource accepts (one reading an input shape accepts none of
 * them).
 */
export function listWritableFieldNames(resource: ResourceMetadata): Set<string> {
  const names = new Set<string>();
  for (const operation of resource.operations) {
    const mode = readWriteMode(operation);
    if (!mode) continue;
    for (const field of listWritableFields(resource, mode, toFixedGroups(operation.denormalizationGroups)))
      names.add(field.name);
  }
  return names;
}

/**
 * The names of the fields of a shape (an operation's DTO) that some operation sends (the shape is its output) and
 * accepts (the shape is its input), over every operation of the registry.
 */
export function listShapeFieldNames(
  shape: ResourceMetadata,
  registry: MetadataRegistry,
  planOf: PlanOf,
): { readable: Set<string>; writable: Set<string> } {
  const readable = new Set<string>();
  const writable = new Set<string>();
  for (const operation of registry.resources.flatMap((resource) => resource.operations)) {
    if (operation.output?.name === shape.name && operation.stages.serialize) {
      for (const field of planOf(shape, toFixedGroups(operation.normalizationGroups)).fields) readable.add(field.name);
    }
    if (operation.input?.name === shape.name && operation.stages.deserialize) {
      for (const field of listWritableFields(shape, 'create', toFixedGroups(operation.denormalizationGroups)))
        writable.add(field.name);
    }
  }
  return { readable, writable };
}
