/**
 * Pass 6: constraints checked at start-up: known kinds (with "did you mean"), the options each needs, and that each
 * suits its field (Length on text, Count on lists, Valid on relations, Unique on stored fields).
 */
import { parseFileSize } from '../../files/file-size.js';
import { DeclarationError } from '../../errors.js';
import type { Constraint } from '../../metadata/constraints.js';
import { formatDidYouMean } from '../../metadata/did-you-mean.js';
import type { FieldMetadata, ResourceMetadata } from '../../metadata/types.js';

const KINDS = [
  'NotBlank',
  'NotNull',
  'Blank',
  'IsNull',
  'Length',
  'Count',
  'Range',
  'Positive',
  'PositiveOrZero',
  'Negative',
  'NegativeOrZero',
  'LessThan',
  'LessThanOrEqual',
  'GreaterThan',
  'GreaterThanOrEqual',
  'EqualTo',
  'NotEqualTo',
  'Choice',
  'Email',
  'Url',
  'Uuid',
  'Regex',
  'Date',
  'DateTime',
  'Unique',
  'Valid',
  'Callback',
  'File',
  'Image',
  'UserPassword',
];

const isText = (field: FieldMetadata) => field.kind === 'scalar' && ['string', 'text', 'password'].includes(field.type);
const isList = (field: FieldMetadata) =>
  field.kind === 'toMany' || (field.kind === 'scalar' && ['string[]', 'json'].includes(field.type));

function checkOne(
  constraint: Constraint,
  field: FieldMetadata | undefined,
  resource: ResourceMetadata,
  where: string,
): void {
  if (constraint === null || typeof constraint !== 'object' || typeof constraint.kind !== 'string') {
    throw new DeclarationError(`${where}: a constraint must come from a constraint function such as NotBlank().`);
  }
  if (!KINDS.includes(constraint.kind))
    throw new DeclarationError(
      `${where}: unknown constraint "${String(constraint.kind)}".${formatDidYouMean(String(constraint.kind), KINDS)}`,
    );
  const name = `${where}, ${constraint.kind}`;
  if (
    constraint.groups !== undefined &&
    (!Array.isArray(constraint.groups) || constraint.groups.some((g) => typeof g !== 'string'))
  ) {
    throw new DeclarationError(`${name}: "groups" must be a list of group names.`);
  }
  const needsField = (what: string, ok: boolean) => {
    if (!field) throw new DeclarationError(`${name}: goes on a field, not on the resource.`);
    if (!ok) throw new DeclarationError(`${name}: needs ${what}, "${field.name}" is not one.`);
  };
  switch (constraint.kind) {
    case 'Length':
    case 'Count':
      if (constraint.min === undefined && constraint.max === undefined && constraint.exactly === undefined)
        throw new DeclarationError(`${name}: give "min", "max" or "exactly".`);
      for (const key of ['min', 'max', 'exactly'] as const) {
        const value = constraint[key];
        if (value !== undefined && (!Number.isInteger(value) || value < 0))
          throw new DeclarationError(`${name}: "${key}" must be a whole number ≥ 0.`);
      }
      if (constraint.min !== undefined && constraint.max !== undefined && constraint.min > constraint.max)
        throw new DeclarationError(`${name}: "min" is above "max".`);
      needsField(
        constraint.kind === 'Length' ? 'a text field' : 'a list or to-many field',
        constraint.kind === 'Length' ? isText(field!) : isList(field!),
      );
      break;
    case 'Range':
      if (constraint.min === undefined && constraint.max === undefined)
        throw new DeclarationError(`${name}: give "min", "max" or both.`);
      break;
    case 'LessThan':
    case 'LessThanOrEqual':
    case 'GreaterThan':
    case 'GreaterThanOrEqual':
    case 'EqualTo':
    case 'NotEqualTo':
      if (!('value' in constraint) || constraint.value === undefined)
        throw new DeclarationError(`${name}: give the "value" to compare with.`);
      break;
    case 'Choice':
      if (!Array.isArray(constraint.choices) || constraint.choices.length === 0)
        throw new DeclarationError(`${name}: give a non-empty "choices" list.`);
      break;
    case 'Regex':
      try {
        new RegExp(constraint.pattern, constraint.flags);
      } catch (error) {
        throw new DeclarationError(
          `${name}: "pattern" is not a valid regular expression (${(error as Error).message}).`,
        );
      }
      break;
    case 'Valid':
      needsField('a relation', field !== undefined && field.kind !== 'scalar');
      break;
    case 'UserPassword':
      needsField('a text field', field !== undefined && isText(field));
      break;
    case 'File':
    case 'Image':
      needsField('a file field', field !== undefined && field.kind === 'scalar' && field.type === 'file');
      if (constraint.maxSize !== undefined && !parseFileSize(constraint.maxSize))
        throw new DeclarationError(
          `${name}: "maxSize" must be a number of bytes or a string such as "2M", "500k" or "1Mi".`,
        );
      break;
    case 'Callback':
      if (typeof constraint.callback !== 'function') throw new DeclarationError(`${name}: give a function.`);
      break;
    case 'Unique': {
      const fields = field ? [field.name] : constraint.fields;
      if (!fields || fields.length === 0)
        throw new DeclarationError(`${name}: on a resource, give the "fields" whose combination must be unique.`);
      for (const fieldName of fields) {
        const target = resource.fieldsByName.get(fieldName);
        if (!target)
          throw new DeclarationError(
            `${name}: "${fieldName}" is not a field of "${resource.name}".${formatDidYouMean(
              fieldName,
              resource.fields.map((f) => f.name),
            )}`,
          );
        if (
          target.kind === 'toMany' ||
          (target.kind === 'scalar' && ['json', 'string[]', 'password', 'file'].includes(target.type))
        ) {
          throw new DeclarationError(`${name}: "${fieldName}" cannot be unique (a list, json or password field).`);
        }
      }
      break;
    }
  }
}

export function checkConstraints(resource: ResourceMetadata): void {
  for (const field of resource.fields) {
    if (!Array.isArray(field.constraints))
      throw new DeclarationError(`Resource "${resource.name}", field "${field.name}": "constraints" must be a list.`);
    for (const constraint of field.constraints)
      checkOne(constraint, field, resource, `Resource "${resource.name}", field "${field.name}"`);
  }
  if (!Array.isArray(resource.constraints))
    throw new DeclarationError(`Resource "${resource.name}": "constraints" must be a list.`);
  for (const constraint of resource.constraints)
    checkOne(constraint, undefined, resource, `Resource "${resource.name}"`);
}
