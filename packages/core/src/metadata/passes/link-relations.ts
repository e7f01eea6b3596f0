/**
 * Pass 3: check both sides of every relation against each other and complete the owning side's `inversedBy` from
 * the inverse side's `mappedBy`, so the metadata states each relation fully on both ends.
 */
import { DeclarationError } from '../../errors.js';
import { didYouMean } from '../did-you-mean.js';
import type { FieldMetadata, ToManyFieldMetadata, ToOneFieldMetadata } from '../types.js';

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

export function linkRelations(fieldsByResource: ReadonlyMap<string, FieldMetadata[]>): void {
  const fieldOf = (resource: string, name: string) => fieldsByResource.get(resource)!.find((f) => f.name === name);
  const namesOf = (resource: string) => fieldsByResource.get(resource)!.map((f) => f.name);

  for (const [resource, fields] of fieldsByResource) {
    for (const field of fields) {
      const where = `Resource "${resource}", field "${field.name}"`;
      if (field.kind === 'toMany') {
        const owning = fieldOf(field.target, field.mappedBy);
        if (!owning) {
          throw new DeclarationError(`${where}: mappedBy "${field.mappedBy}" is not a field of "${field.target}".${didYouMean(field.mappedBy, namesOf(field.target))}`);
        }
        if (owning.kind !== 'toOne' || owning.target !== resource) {
          throw new DeclarationError(`${where}: mappedBy "${field.mappedBy}" must be a to-one relation of "${field.target}" pointing at "${resource}".`);
        }
        if (owning.inversedBy !== undefined && owning.inversedBy !== field.name) {
          throw new DeclarationError(`${where}: "${field.target}.${owning.name}" says its inverse side is "${owning.inversedBy}", not "${field.name}".`);
        }
        (owning as Mutable<ToOneFieldMetadata>).inversedBy = field.name;
      } else if (field.kind === 'toOne' && field.inversedBy !== undefined) {
        const inverse = fieldOf(field.target, field.inversedBy);
        if (!inverse) {
          throw new DeclarationError(`${where}: inversedBy "${field.inversedBy}" is not a field of "${field.target}".${didYouMean(field.inversedBy, namesOf(field.target))}`);
        }
        const valid = inverse.kind === 'toMany' && inverse.target === resource && (inverse as ToManyFieldMetadata).mappedBy === field.name;
        if (!valid) {
          throw new DeclarationError(`${where}: inversedBy "${field.inversedBy}" must be a to-many relation of "${field.target}" with mappedBy "${field.name}".`);
        }
      }
    }
  }
}
