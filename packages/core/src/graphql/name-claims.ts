/**
 * Who took which GraphQL name: the built-in queries and mutations first, then custom operations, whose clash with
 * another field, or with a type, stops start-up with a message naming both.
 */
import { DeclarationError } from '../errors.js';
import { findBuiltinOperation } from '../metadata/builtin-operation.js';
import type { MetadataRegistry, OperationMetadata, ResourceMetadata } from '../metadata/types.js';
import { toCollectionQueryName, toItemQueryName, toMutationName } from './naming.js';

/** Where a custom operation is declared, for messages. */
export const describeLocation = (resource: ResourceMetadata, operation: OperationMetadata) =>
  `Resource "${resource.name}", operation "${operation.customName}"`;

export class NameClaims {
  private readonly fields = new Map<string, string>();
  /** The GraphQL types custom operations and shapes name, and who named them, for the messages of type name clashes. */
  private readonly types = new Map<string, string>();

  /**
   * The built-in names first, all of them: a custom operation's name that takes one is the custom operation's mistake.
   */
  constructor(registry: MetadataRegistry) {
    this.fields.set('node', 'the Relay node query');
    for (const resource of registry.resources) {
      const has = (kind: string) => findBuiltinOperation(resource, kind as never) !== undefined;
      if (has('get')) this.fields.set(toItemQueryName(resource.name), `the item query of resource "${resource.name}"`);
      if (has('getCollection'))
        this.fields.set(toCollectionQueryName(resource.name), `the collection query of resource "${resource.name}"`);
      if (has('post'))
        this.fields.set(toMutationName('create', resource.name), `the create mutation of resource "${resource.name}"`);
      if (has('patch') || has('put'))
        this.fields.set(toMutationName('update', resource.name), `the update mutation of resource "${resource.name}"`);
      if (has('delete'))
        this.fields.set(toMutationName('delete', resource.name), `the delete mutation of resource "${resource.name}"`);
    }
  }

  /** Claims a custom operation's query or mutation name; a name another field has stops start-up. */
  claim(name: string, resource: ResourceMetadata, operation: OperationMetadata, kind: 'query' | 'mutation'): string {
    const owner = this.fields.get(name);
    if (owner)
      throw new DeclarationError(
        `${describeLocation(resource, operation)}: its GraphQL ${kind} "${name}" is already ${owner}; give the operation another name.`,
      );
    this.fields.set(name, `the GraphQL ${kind} of resource "${resource.name}", operation "${operation.customName}"`);
    return name;
  }

  /** Records who named a type, for the message of a clash (graphql-js finds it when the schema is put together). */
  nameType(name: string, owner: string): void {
    this.types.set(name, owner);
  }

  /** The declaration error for graphql-js's "multiple types named" error, or the error itself. */
  typeClash(error: Error): Error {
    const clash = /multiple types named "(\w+)"/.exec(error.message)?.[1];
    const owner = clash && this.types.get(clash);
    return owner
      ? new DeclarationError(
          `${owner}: the GraphQL type "${clash}" is already the name of another type of the schema; rename it.`,
        )
      : error;
  }
}
