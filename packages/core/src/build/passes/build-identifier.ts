/** The `id` option of a resource, checked and turned into its `IdentifierMetadata`. */
import type { ResourceDeclaration } from '../../declare/types.js';
import { DeclarationError } from '../../errors.js';
import { INTEGER_IDENTIFIER } from '../../metadata/identifier.js';
import type { IdentifierMetadata, ResourceMetadata } from '../../metadata/types.js';

const UUID_BY_FRAMEWORK: IdentifierMetadata = Object.freeze({
  name: 'id',
  column: 'id',
  type: 'uuid',
  generatedBy: 'framework',
});
const UUID_BY_DATABASE: IdentifierMetadata = Object.freeze({ ...UUID_BY_FRAMEWORK, generatedBy: 'database' });

export function buildIdentifier(declaration: ResourceDeclaration): IdentifierMetadata {
  const option: unknown = declaration.id;
  const where = `Resource "${declaration.name}"`;
  if (option === undefined || option === 'integer') return INTEGER_IDENTIFIER;
  if (option === 'uuid') return UUID_BY_FRAMEWORK;
  if (typeof option === 'object' && option !== null && !Array.isArray(option)) {
    const { type, generatedBy, ...rest } = option as { type?: unknown; generatedBy?: unknown };
    const unknown = Object.keys(rest)[0];
    if (unknown !== undefined)
      throw new DeclarationError(`${where}: "id" has an unknown option "${unknown}" (known: type, generatedBy).`);
    if (type !== 'uuid')
      throw new DeclarationError(`${where}: "id.type" must be "uuid" (an integer id is always made by the database).`);
    if (generatedBy === undefined || generatedBy === 'framework') return UUID_BY_FRAMEWORK;
    if (generatedBy === 'database') return UUID_BY_DATABASE;
    throw new DeclarationError(`${where}: "id.generatedBy" must be "framework" or "database".`);
  }
  throw new DeclarationError(
    `${where}: "id" must be "integer", "uuid" or { type: "uuid", generatedBy: "framework" | "database" }.`,
  );
}

/**
 * Every relation to a resource with UUID ids says `targetId: 'uuid'` (and none says it of an integer one): the item
 * types (`InferResource`) know a relation's target only by name, so the declaration carries the id type for them,
 * and a change of a target's id type shows at every relation that must follow it.
 */
export function assertRelationIdTypes(
  resources: readonly ResourceMetadata[],
  declarationOf: (resource: string) => ResourceDeclaration,
): void {
  const identifiers = new Map(resources.map((resource) => [resource.name, resource.identifier]));
  for (const resource of resources) {
    for (const field of resource.fields) {
      if (field.kind === 'scalar') continue;
      const identifier = identifiers.get(field.target);
      if (!identifier) continue;
      const declared = (declarationOf(resource.name).fields[field.name] as { targetId?: unknown } | undefined)
        ?.targetId;
      if ((declared ?? 'integer') === identifier.type) continue;
      throw new DeclarationError(
        identifier.type === 'uuid'
          ? `Resource "${resource.name}", field "${field.name}": "${field.target}" has UUID ids; declare targetId: 'uuid' on the relation.`
          : `Resource "${resource.name}", field "${field.name}": "targetId" must be 'integer' or left out: "${field.target}" has integer ids.`,
      );
    }
  }
}
