/**
 * The built-in operation of a kind (not a custom one built on the same kind): the item GET whose ETag writes are
 * checked against, the collection GET a subresource inherits from, the operations GraphQL names after the resource.
 */
import type { OperationKind } from './declared.js';
import type { OperationMetadata, ResourceMetadata } from './types.js';

export function findBuiltinOperation(
  resource: ResourceMetadata,
  kind: OperationKind | 'getSubresource',
): OperationMetadata | undefined {
  return resource.operations.find((operation) => operation.kind === kind && operation.customName === null);
}
