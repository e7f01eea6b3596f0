/**
 * Validation of the new state of an item: the violations found while reading the body (types, IRIs), then the
 * constraints every stored field carries by its declaration (a non-nullable field must hold a value), through nested
 * writes too (`author.name`). All violations of a request are reported together, as one 400 ConstraintViolationList.
 */
import type { MetadataRegistry, ResourceMetadata } from '../metadata/types.js';
import { type Entity, NestedWrite } from '../state/contracts.js';
import { assertNoViolations, type ConstraintViolation, VIOLATION_CODES, violation } from './violation.js';

function collect(registry: MetadataRegistry, resource: ResourceMetadata, data: Entity, prefix: string, reported: ReadonlySet<string>, into: ConstraintViolation[]): void {
  for (const field of resource.fields) {
    const path = prefix + field.name;
    if (field.kind === 'toMany' || reported.has(path)) continue;
    const value = data[field.name];
    if (value instanceof NestedWrite) {
      collect(registry, registry.resource(value.resource), value.data, `${path}.`, reported, into);
      continue;
    }
    if (!field.nullable && (value === null || value === undefined)) {
      into.push(violation(path, 'This value should not be null.', VIOLATION_CODES.notNull));
    }
  }
}

export function validateEntity(registry: MetadataRegistry, resource: ResourceMetadata, data: Entity, earlier: readonly ConstraintViolation[]): void {
  const violations = [...earlier];
  // A property already reported (a wrong type, a bad IRI) is not reported again as missing.
  const reported = new Set(earlier.map((v) => v.propertyPath.replace(/\[\d+\]$/, '')));
  collect(registry, resource, data, '', reported, violations);
  assertNoViolations(violations);
}
