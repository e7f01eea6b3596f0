/**
 * The `softDelete` option: checked, its date-time field declared when the resource does not declare it (nullable,
 * read-only: only DELETE sets it), and normalized into `SoftDeleteMetadata` with the filter every collection read of
 * the resource applies. Runs around the fields pass: `addSoftDeleteField` before it, `buildSoftDelete` after; and
 * `toRestoreOperation` gives the operations pass the `restore` operation a `restore` rule asks for.
 */
import type { OperationDeclaration, ResourceDeclaration, SoftDeleteDeclaration } from '../../declare/types.js';
import { DeclarationError } from '../../errors.js';
import type { FieldMetadata, SoftDeleteMetadata } from '../../metadata/types.js';
import { createSoftDeleteFilter } from '../../query/filters/soft-delete-filter.js';
import { resolveRule } from './build-operations.js';

const DEFAULT_FIELD = 'deletedAt';
const KEYS = ['field', 'list', 'listMessage', 'restore', 'restoreMessage'];

/** `softDelete` in its full form, or null when the resource deletes rows. */
function normalize(declaration: ResourceDeclaration): SoftDeleteDeclaration | null {
  const option = declaration.softDelete;
  const where = `Resource "${declaration.name}"`;
  if (option === undefined || option === false) return null;
  if (option === true) return { field: DEFAULT_FIELD };
  if (typeof option === 'string') return { field: option };
  if (typeof option !== 'object' || option === null || Array.isArray(option))
    throw new DeclarationError(`${where}: "softDelete" must be true, a field name or { field, list, restore }.`);
  for (const key of Object.keys(option))
    if (!KEYS.includes(key))
      throw new DeclarationError(`${where}: "softDelete" has an unknown option "${key}" (known: ${KEYS.join(', ')}).`);
  if (option.field !== undefined && typeof option.field !== 'string')
    throw new DeclarationError(`${where}: "softDelete.field" must be a field name.`);
  return { ...option, field: option.field ?? DEFAULT_FIELD };
}

/** The declaration with the soft-delete field added when it does not declare it itself. */
export function addSoftDeleteField(declaration: ResourceDeclaration): ResourceDeclaration {
  const softDelete = normalize(declaration);
  if (!softDelete || softDelete.field! in declaration.fields) return declaration;
  return {
    ...declaration,
    fields: {
      ...declaration.fields,
      [softDelete.field!]: {
        type: 'datetime',
        nullable: true,
        writable: false,
        description: 'When the item was deleted (only deleted items have one).',
      },
    },
  };
}

/** The soft delete of a resource whose fields are built: its field checked, its rule and filter. */
export function buildSoftDelete(
  declaration: ResourceDeclaration,
  fields: readonly FieldMetadata[],
): SoftDeleteMetadata | null {
  const softDelete = normalize(declaration);
  if (!softDelete) return null;
  const where = `Resource "${declaration.name}", softDelete`;
  const name = softDelete.field!;
  const field = fields.find((candidate) => candidate.name === name);
  if (field?.kind !== 'scalar' || field.type !== 'datetime' || !field.nullable || field.computed)
    throw new DeclarationError(`${where}: the field "${name}" must be a stored, nullable datetime field.`);
  if (field.writable)
    throw new DeclarationError(
      `${where}: the field "${name}" must not be writable (DELETE alone sets it): add "writable: false".`,
    );
  const list = resolveRule(
    softDelete.list === undefined ? [] : [{ security: softDelete.list, securityMessage: softDelete.listMessage }],
    'security',
    `${where}.list`,
  );
  return { field: name, column: field.column, list, filter: createSoftDeleteFilter(name, list !== null) };
}

/**
 * The `restore` operation of a resource whose `softDelete` has a `restore` rule, or null: a custom operation
 * (`PATCH /<plural>/{id}/restore`, no body) whose rule is `restore`, and which renders the item with the read groups
 * of the resource's `get`, as GET renders it. The operations pass builds it as any custom operation (a declared one
 * of the same name or route is refused there) and marks it, so the read, validate and write stages know it.
 */
export function toRestoreOperation(declaration: ResourceDeclaration, plural: string): OperationDeclaration | null {
  const softDelete = normalize(declaration);
  if (softDelete?.restore === undefined) return null;
  const get = (declaration.operations ?? []).find(
    (entry): entry is OperationDeclaration =>
      typeof entry === 'object' && entry?.kind === 'get' && entry.name === undefined && entry.uriTemplate === undefined,
  );
  return {
    kind: 'patch',
    name: 'restore',
    uriTemplate: `/${plural}/{id}/restore`,
    input: false,
    security: softDelete.restore,
    ...(softDelete.restoreMessage === undefined ? {} : { securityMessage: softDelete.restoreMessage }),
    ...(get?.normalizationGroups === undefined ? {} : { normalizationGroups: get.normalizationGroups }),
    description: `Restores a deleted ${declaration.name} resource.`,
  };
}
