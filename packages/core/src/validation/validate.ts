/**
 * Validation of the new state of an item: the violations found while reading the body (types, IRIs), then the
 * constraints every stored field carries by its declaration (a non-nullable field must hold a value). All
 * violations of a request are reported together, as one 400 ConstraintViolationList.
 */
import type { ResourceMetadata } from '../metadata/types.js';
import type { Entity } from '../state/contracts.js';
import { assertNoViolations, type ConstraintViolation, VIOLATION_CODES, violation } from './violation.js';

export function validateEntity(resource: ResourceMetadata, data: Entity, earlier: readonly ConstraintViolation[]): void {
  const violations = [...earlier];
  const reported = new Set(earlier.map((v) => v.propertyPath.split(/[.[]/)[0]));
  for (const field of resource.fields) {
    if (field.kind === 'toMany' || field.nullable || reported.has(field.name)) continue;
    const value = data[field.name];
    if (value === null || value === undefined) {
      violations.push(violation(field.name, 'This value should not be null.', VIOLATION_CODES.notNull));
    }
  }
  assertNoViolations(violations);
}
