/**
 * A custom operation's URI variables as GraphQL arguments (or input fields): `id: ID!` (the item's IRI, as the item
 * query takes it) when the template has `{id}`, each other variable as `String!`; and the reverse, the arguments → the
 * target the pipeline reads. An id that is no IRI of the resource's items is null: the pipeline answers it as a
 * missing item (after the caller's access rule, so an anonymous caller of a protected operation gets its 401 first).
 */
import {
  GraphQLID,
  type GraphQLFieldConfigArgumentMap,
  type GraphQLInputFieldConfigMap,
  GraphQLNonNull,
  GraphQLString,
} from 'graphql';
import { DeclarationError } from '../errors.js';
import type { ItemId, MetadataRegistry, OperationMetadata, ResourceMetadata } from '../metadata/types.js';
import { parseIri } from '../metadata/iri.js';
import { describeLocation } from './name-claims.js';

/** What a custom operation's URI variables name: the item (`id`) and the other variables, as strings. */
export type Target = { readonly id?: ItemId | null; readonly variables?: Readonly<Record<string, string>> };
/** No variables: the built-in operations' target. */
const NO_TARGET: Target = {};

/** The id an IRI gives an item of the resource; null when it names none. */
export function toItemId(registry: MetadataRegistry, resource: ResourceMetadata, iri: string): ItemId | null {
  const parsed = parseIri(iri, registry);
  return parsed && parsed.resource === resource ? parsed.id : null;
}

export function buildUriArguments(
  registry: MetadataRegistry,
  resource: ResourceMetadata,
  operation: OperationMetadata | null,
) {
  const args: GraphQLFieldConfigArgumentMap & GraphQLInputFieldConfigMap = {};
  const others = operation ? operation.uriVariables.filter((variable) => variable !== 'id') : [];
  const withId = operation?.uriVariables.includes('id') ?? false;
  if (withId) args.id = { type: new GraphQLNonNull(GraphQLID), description: `The IRI of the ${resource.name}.` };
  for (const variable of others)
    args[variable] = {
      type: new GraphQLNonNull(GraphQLString),
      description: `The {${variable}} of ${operation!.uriTemplate}.`,
    };
  const target = (values: Record<string, unknown>): Target => {
    if (!withId && others.length === 0) return NO_TARGET;
    const id = withId ? toItemId(registry, resource, values.id as string) : undefined;
    if (others.length === 0) return { id };
    const variables: Record<string, string> = {};
    for (const variable of others) variables[variable] = values[variable] as string;
    return id === undefined ? { variables } : { id, variables };
  };
  return { args, target, names: [...(withId ? ['id'] : []), ...others] };
}

/**
 * Merges argument (or input field) maps, refusing a name given twice (a URI variable named like a filter or a field).
 */
export function mergeArgs<T extends object>(
  resource: ResourceMetadata,
  operation: OperationMetadata | null,
  ...maps: T[]
): T {
  const merged = {} as Record<string, unknown>;
  for (const map of maps) {
    for (const [name, config] of Object.entries(map)) {
      if (name in merged && operation)
        throw new DeclarationError(
          `${describeLocation(resource, operation)}: its GraphQL field takes "${name}" twice (a URI variable is named like a filter, a paging argument or an input field); rename the variable.`,
        );
      merged[name] = config;
    }
  }
  return merged as T;
}
