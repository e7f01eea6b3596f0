/**
 * Validation of the new state of an item, all violations of a request at once (one 400 ConstraintViolationList):
 * the violations found while reading the body (types, IRIs); the declared constraints of the active validation groups,
 * on fields and on the whole item (Unique against the database, Callback); nested items written through a relation,
 * with their own constraints where the relation carries Valid; and what storage itself demands (a non-nullable field
 * must hold a value), which holds whatever the groups.
 */
import type { ConstraintViolation } from '../errors.js';
import type { ItemId } from '../metadata/types.js';
import {
  type Entity,
  type MetadataRegistry,
  NestedWrite,
  type ResourceMetadata,
  type ScalarFieldMetadata,
  type ToOneFieldMetadata,
} from '../metadata/types.js';
import { checkConstraint } from './check-constraint.js';
import type { CallbackContext, Constraint } from '../metadata/constraints.js';
import { MESSAGES } from './messages.js';
import { collectUniqueConstraints, ignoresCase, formatUniqueMessage, resolveUniquePath } from './unique.js';
import { assertNoViolations, VIOLATION_CODES, createViolation } from './violation.js';

/** Whether no other stored item has these values (the item `exceptId` itself aside). */
export type UniquenessCheck = (
  resource: ResourceMetadata,
  /** The values to look for; `ignoreCase`: a text value matches whatever the letter case (`lower()` on both sides). */
  values: readonly {
    readonly field: ScalarFieldMetadata | ToOneFieldMetadata;
    readonly value: unknown;
    readonly ignoreCase?: boolean;
  }[],
  exceptId: ItemId | undefined,
) => Promise<boolean>;

export interface ValidationInput {
  readonly registry: MetadataRegistry;
  readonly resource: ResourceMetadata;
  readonly data: Entity;
  readonly previous: Entity | null;
  /** The id of the item being replaced or updated (excluded from Unique checks). */
  readonly id: ItemId | undefined;
  /** Violations found while reading the body. */
  readonly earlier: readonly ConstraintViolation[];
  readonly groups: ReadonlySet<string>;
  readonly user: unknown;
  readonly isUnique: UniquenessCheck;
  /** Whether a value is the current user's password (UserPassword); false for anonymous callers. */
  readonly isUserPassword?: (value: string) => Promise<boolean>;
}

const active = (constraint: Constraint, groups: ReadonlySet<string>) =>
  (constraint.groups ?? ['Default']).some((g) => groups.has(g));

export async function validateEntity(input: ValidationInput): Promise<void> {
  const violations: ConstraintViolation[] = [...input.earlier];
  // A property already reported (a wrong type, a bad IRI) is not reported again.
  const reported = new Set(input.earlier.map((v) => v.propertyPath.replace(/\[\d+\]$/, '')));
  await validateItem(input, input.resource, input.data, input.previous, input.id, '', true, reported, violations);
  assertNoViolations(violations);
}

async function validateItem(
  input: ValidationInput,
  resource: ResourceMetadata,
  data: Entity,
  previous: Entity | null,
  id: ItemId | undefined,
  prefix: string,
  withConstraints: boolean,
  reported: Set<string>,
  into: ConstraintViolation[],
): Promise<void> {
  const add = (path: string, message: string, code: string) => {
    if (into.some((v) => v.propertyPath === path && v.code === code)) return;
    into.push(createViolation(path, message, code));
    reported.add(path);
  };
  const callbackContext = (path: string, code: string): CallbackContext => ({
    object: data,
    previousObject: previous,
    user: input.user,
    addViolation: (message, options = {}) =>
      add(options.path ? prefix + options.path : path, message, options.code ?? code),
  });

  for (const field of resource.fields) {
    const path = prefix + field.name;
    // A computed field has no value to check: it is worked out when the item is sent.
    if (reported.has(path) || (field.kind === 'scalar' && field.computed)) continue;
    const value = data[field.name];
    const constraints = withConstraints ? field.constraints.filter((c) => active(c, input.groups)) : [];
    if (value instanceof NestedWrite) {
      const nested = input.registry.resource(value.resource);
      const valid = constraints.some((c) => c.kind === 'Valid');
      await validateItem(input, nested, value.data, null, value.id, `${path}.`, valid, reported, into);
      continue;
    }
    for (const constraint of constraints) {
      if (constraint.kind === 'Valid') continue;
      if (constraint.kind === 'Callback') {
        await constraint.callback(value, callbackContext(path, MESSAGES.callback.code));
        continue;
      }
      if (constraint.kind === 'UserPassword') {
        // As Symfony's: a missing or empty value is no password either.
        if (typeof value !== 'string' || value === '' || !(await input.isUserPassword?.(value)))
          add(path, constraint.message ?? MESSAGES.userPassword.message, MESSAGES.userPassword.code);
        continue;
      }
      if (constraint.kind === 'Unique') {
        if (
          field.kind !== 'toMany' &&
          value !== null &&
          value !== undefined &&
          !(await input.isUnique(resource, [{ field, value, ignoreCase: ignoresCase(constraint, field) }], id))
        ) {
          add(path, formatUniqueMessage(constraint), MESSAGES.unique.code);
        }
        continue;
      }
      for (const found of checkConstraint(value, constraint)) add(path, found.message, found.code);
    }
    // What storage demands, whatever the groups: a non-nullable column holds a value (a timestamp gets its value
    // from the built-in processor as it writes the row, after this check).
    if (
      field.kind !== 'toMany' &&
      !field.nullable &&
      (value === null || value === undefined) &&
      !(field.kind === 'scalar' && field.timestamp) &&
      !reported.has(path)
    ) {
      add(path, 'This value should not be null.', VIOLATION_CODES.notNull);
    }
  }

  if (!withConstraints) return;
  for (const constraint of resource.constraints) {
    if (!active(constraint, input.groups)) continue;
    if (constraint.kind === 'Callback') {
      await constraint.callback(data, callbackContext(prefix.replace(/\.$/, ''), MESSAGES.callback.code));
    } else if (constraint.kind === 'Unique') {
      const fields = constraint.fields!.map(
        (name) => resource.fieldsByName.get(name) as ScalarFieldMetadata | ToOneFieldMetadata,
      );
      const ignoreCase = ignoresCase(constraint);
      const values = fields.map((field) => ({ field, value: data[field.name], ignoreCase }));
      // Null never equals null in SQL: a combination with a null is not a duplicate. New nested items are not stored
      // yet.
      if (values.some((v) => v.value === null || v.value === undefined || v.value instanceof NestedWrite)) continue;
      if (!(await input.isUnique(resource, values, id)))
        add(
          prefix + resolveUniquePath(constraint, constraint.fields!),
          formatUniqueMessage(constraint),
          MESSAGES.unique.code,
        );
    }
  }
}

/**
 * The Unique constraints of a stored item, whatever their groups (its unique indexes hold whatever the groups),
 * against the other live items: the check of a `restore`, which makes a deleted item live again. Throws the same
 * 400 ConstraintViolationList as `validateEntity` (the constraint's path and message) when another item now holds
 * the values.
 */
export async function validateUniqueness(
  input: Pick<ValidationInput, 'resource' | 'data' | 'id' | 'isUnique'>,
): Promise<void> {
  const { resource, data, id } = input;
  const violations: ConstraintViolation[] = [];
  for (const { fields, constraint, lowerCase } of collectUniqueConstraints(resource)) {
    // To-many fields hold no column; null never equals null in SQL: a combination with a null is not a duplicate.
    const stored = fields.map((name) => resource.fieldsByName.get(name)!);
    if (stored.some((field) => field.kind === 'toMany' || data[field.name] === null || data[field.name] === undefined))
      continue;
    const values = (stored as (ScalarFieldMetadata | ToOneFieldMetadata)[]).map((field) => ({
      field,
      value: data[field.name],
      ignoreCase: lowerCase.includes(field.name),
    }));
    const path = resolveUniquePath(constraint, fields);
    if (violations.some((v) => v.propertyPath === path) || (await input.isUnique(resource, values, id))) continue;
    violations.push(createViolation(path, formatUniqueMessage(constraint), MESSAGES.unique.code));
  }
  assertNoViolations(violations);
}
