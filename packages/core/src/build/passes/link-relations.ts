/**
 * Pass 3: check both sides of every relation against each other and complete what one side tells of the other:
 * the owning side's `inversedBy` from the inverse side's `mappedBy`, and the join table of a many-to-many's inverse
 * side from its owning side. The metadata then states each relation fully on both ends.
 */
import { DeclarationError } from '../../errors.js';
import { formatDidYouMean } from '../../metadata/did-you-mean.js';
import type { FieldMetadata, ToManyFieldMetadata, ToOneFieldMetadata } from '../../metadata/types.js';

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

export function linkRelations(fieldsByResource: ReadonlyMap<string, FieldMetadata[]>): void {
  const fieldOf = (resource: string, name: string) => fieldsByResource.get(resource)!.find((f) => f.name === name);
  const namesOf = (resource: string) => fieldsByResource.get(resource)!.map((f) => f.name);

  for (const [resource, fields] of fieldsByResource) {
    for (const field of fields) {
      const where = `Resource "${resource}", field "${field.name}"`;
      if (field.kind === 'toMany' && field.mappedBy !== undefined) {
        const owning = fieldOf(field.target, field.mappedBy);
        if (!owning) {
          throw new DeclarationError(
            `${where}: mappedBy "${field.mappedBy}" is not a field of "${field.target}".${formatDidYouMean(field.mappedBy, namesOf(field.target))}`,
          );
        }
        const oneToMany = owning.kind === 'toOne' && owning.target === resource;
        const manyToMany = owning.kind === 'toMany' && owning.mappedBy === undefined && owning.target === resource;
        if (!oneToMany && !manyToMany) {
          throw new DeclarationError(
            `${where}: mappedBy "${field.mappedBy}" must be a to-one relation of "${field.target}" pointing at "${resource}", or the owning side of a many-to-many.`,
          );
        }
        const owner = owning as ToOneFieldMetadata | ToManyFieldMetadata;
        if (owner.inversedBy !== undefined && owner.inversedBy !== field.name) {
          throw new DeclarationError(
            `${where}: "${field.target}.${owning.name}" says its inverse side is "${owner.inversedBy}", not "${field.name}".`,
          );
        }
        (owner as Mutable<typeof owner>).inversedBy = field.name;
        if (manyToMany) {
          const join = (owning as ToManyFieldMetadata).joinTable!;
          (field as Mutable<ToManyFieldMetadata>).joinTable = {
            table: join.table,
            ownColumn: join.targetColumn,
            targetColumn: join.ownColumn,
          };
        }
      } else if ((field.kind === 'toOne' || field.kind === 'toMany') && field.inversedBy !== undefined) {
        const inverse = fieldOf(field.target, field.inversedBy);
        if (!inverse) {
          throw new DeclarationError(
            `${where}: inversedBy "${field.inversedBy}" is not a field of "${field.target}".${formatDidYouMean(field.inversedBy, namesOf(field.target))}`,
          );
        }
        const valid = inverse.kind === 'toMany' && inverse.target === resource && inverse.mappedBy === field.name;
        if (!valid) {
          throw new DeclarationError(
            `${where}: inversedBy "${field.inversedBy}" must be a to-many relation of "${field.target}" with mappedBy "${field.name}".`,
          );
        }
      }
    }
  }
}
