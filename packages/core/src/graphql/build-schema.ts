/**
 * The GraphQL schema, built from the metadata with graphql-js objects, following API Platform's conventions: a type
 * per resource and output shape (`output-types.ts`), item and collection queries and custom reads (`queries.ts`),
 * create / update / delete mutations and custom writes (`mutations.ts`), `node(id)`, and the subscriptions to the items
 * of resources whose writes are published (`subscriptions.ts`). GraphQL is a transport:
 * resolvers hand their arguments to the same pipeline as REST (`execute.ts`), and what a caller sees of an item is
 * what REST's normalization plan for the operation that read it sends (`visibility.ts`).
 */
import { type GraphQLFieldConfigMap, GraphQLObjectType, GraphQLSchema, printSchema } from 'graphql';
import type { MetadataRegistry } from '../metadata/types.js';
import type { GraphQLRequestContext } from './execute.js';
import { createInputTypes } from './input-types.js';
import { addCustomMutation, addResourceMutations } from './mutations.js';
import { NameClaims, describeLocation } from './name-claims.js';
import { createOutputTypes } from './output-types.js';
import { addCustomQuery, addResourceQueries, buildNodeQuery } from './queries.js';
import { createReadModel } from './read-model.js';
import type { SchemaParts } from './schema-parts.js';
import { addResourceSubscriptions } from './subscriptions.js';

/** The GraphQL schema of a registry (what `/graphql` serves): its types, queries and mutations. See docs/graphql.md. */
export function buildGraphQLSchema(registry: MetadataRegistry): GraphQLSchema {
  const model = createReadModel(registry);
  const parts: SchemaParts = {
    registry,
    model,
    types: createOutputTypes(model),
    inputs: createInputTypes(registry),
    names: new NameClaims(registry),
  };
  const queries: GraphQLFieldConfigMap<unknown, GraphQLRequestContext> = { node: buildNodeQuery(parts) };
  const mutations: GraphQLFieldConfigMap<unknown, GraphQLRequestContext> = {};
  const subscriptions: GraphQLFieldConfigMap<unknown, GraphQLRequestContext> = {};
  for (const resource of registry.resources) {
    parts.types.typeOf(resource);
    addResourceQueries(parts, resource, queries);
    addResourceMutations(parts, resource, mutations);
    addResourceSubscriptions(parts, resource, subscriptions);
    // Custom operations, after the resource's built-in ones.
    for (const operation of resource.operations) {
      if (operation.customName === null || operation.kind === 'getSubresource') continue;
      if (operation.output)
        parts.names.nameType(
          operation.output.name,
          `Shape "${operation.output.name}" (the output of ${describeLocation(resource, operation)})`,
        );
      if (operation.kind === 'get' || operation.kind === 'getCollection')
        addCustomQuery(parts, resource, operation, queries);
      else addCustomMutation(parts, resource, operation, mutations);
    }
  }
  try {
    return new GraphQLSchema({
      query: new GraphQLObjectType({ name: 'Query', fields: queries }),
      ...(Object.keys(mutations).length > 0
        ? { mutation: new GraphQLObjectType({ name: 'Mutation', fields: mutations }) }
        : {}),
      ...(Object.keys(subscriptions).length > 0
        ? { subscription: new GraphQLObjectType({ name: 'Subscription', fields: subscriptions }) }
        : {}),
      types: parts.types.resourceTypes(),
    });
  } catch (error) {
    // Two types of one name: a shape or a custom operation's input or payload named like another type of the schema.
    throw parts.names.typeClash(error as Error);
  }
}

/** The GraphQL schema of the resources as SDL (for clients, code generators and review). */
export function printGraphQLSchema(registry: MetadataRegistry): string {
  return printSchema(buildGraphQLSchema(registry));
}
