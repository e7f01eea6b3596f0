/**
 * Which fields a client must give, as the documents tell it (OpenAPI `required`, Hydra `hydra:required`): a NotBlank
 * (without `allowNull`) or NotNull constraint in the validation groups, or what storage demands, a writable
 * non-nullable field that nothing else fills (no default, not the current user). Pure: reads metadata only.
 */
import type { FieldMetadata } from '../metadata/types.js';

/**
 * Whether `field` is required. `groups`: the validation groups in force, or null for "any group" (the documentation
 * of the resource as a whole). Constraints without groups belong to `Default`.
 */
export function isRequiredField(field: FieldMetadata, groups: ReadonlySet<string> | null): boolean {
  if (field.kind === 'toMany') return false;
  const inGroups = (declared: readonly string[] | undefined) =>
    groups === null || (declared ?? ['Default']).some((g) => groups.has(g));
  const constrained = field.constraints.some(
    (c) => ((c.kind === 'NotBlank' && c.allowNull !== true) || c.kind === 'NotNull') && inGroups(c.groups),
  );
  if (constrained) return true;
  if (!field.writable || field.nullable) return false;
  if (field.kind === 'scalar') return field.default === undefined;
  // A relation filled with the caller (`currentUser`) needs nothing from the client.
  return !('currentUser' in field && field.currentUser !== undefined);
}
