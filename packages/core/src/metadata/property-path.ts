/**
 * Property paths of filters and orders (`title`, `author.name`, `books.title`): resolved once against the metadata
 * into the relation hops to follow and the field at the end. Unknown names fail at start-up with "did you mean".
 */
import { DeclarationError } from '../errors.js';
import { formatDidYouMean } from './did-you-mean.js';
import type { FieldMetadata, ScalarFieldMetadata, ToManyFieldMetadata, ToOneFieldMetadata } from './types.js';

/** The identifier seen as a field, so paths may end in `id` (`author.id`). */
export const ID_FIELD: ScalarFieldMetadata = Object.freeze({
  kind: 'scalar',
  name: 'id',
  type: 'integer',
  column: 'id',
  nullable: false,
  default: undefined,
  computed: undefined,
  timestamp: undefined,
  readable: true,
  writable: false,
  immutable: false,
  description: undefined,
  iri: 'id',
  groups: [],
  constraints: [],
  security: undefined,
});

export interface ResolvedPath {
  readonly path: string;
  /** The relations to follow, in order. */
  readonly hops: readonly (ToOneFieldMetadata | ToManyFieldMetadata)[];
  /** The resource that owns the leaf. */
  readonly owner: string;
  /** The field at the end: a scalar, the identifier, or a to-one relation (its foreign key). */
  readonly leaf: ScalarFieldMetadata | ToOneFieldMetadata;
}

/** Resolves `path` from `resource`. A to-many relation at the end means its targets' ids (`books` = `books.id`). */
export function resolvePath(
  path: string,
  resource: string,
  fieldsOf: (resource: string) => readonly FieldMetadata[],
  where: string,
): ResolvedPath {
  const names = path.split('.');
  const hops: (ToOneFieldMetadata | ToManyFieldMetadata)[] = [];
  let owner = resource;
  for (let index = 0; index < names.length; index++) {
    const name = names[index]!;
    const fields = fieldsOf(owner);
    const field = name === 'id' ? ID_FIELD : fields.find((f) => f.name === name);
    if (!field) {
      throw new DeclarationError(
        `${where}: "${path}" names no field "${name}" of "${owner}".${formatDidYouMean(name, ['id', ...fields.map((f) => f.name)])}`,
      );
    }
    const last = index === names.length - 1;
    if (field.kind === 'scalar') {
      if (!last) throw new DeclarationError(`${where}: "${path}" goes on past "${name}", which is not a relation.`);
      if (field.computed)
        throw new DeclarationError(
          `${where}: "${path}" is a computed field (it has no column): filter or order by it with a custom filter.`,
        );
      return { path, hops, owner, leaf: field };
    }
    if (last && field.kind === 'toOne') return { path, hops, owner, leaf: field };
    hops.push(field);
    owner = field.target;
    if (last) return { path, hops, owner, leaf: ID_FIELD };
  }
  throw new DeclarationError(`${where}: empty property path.`);
}
