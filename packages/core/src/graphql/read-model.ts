/**
 * Which read groups decide the fields of a GraphQL type and of each item it resolves, worked out once from the
 * metadata. A type holds the fields the read groups of every operation sending its items reach (the item GET's, the
 * collection GET's, a custom operation's); an item then shows the fields of the operation that read it, as REST's
 * normalization plan for that operation's groups sends them (`request-scope.ts` asks the plan). Where every operation
 * reads the same fixed groups, the type is already exactly the plan, and no item needs asking.
 */
import { findBuiltinOperation } from '../metadata/builtin-operation.js';
import { toFixedGroups } from '../metadata/groups.js';
import type { MetadataRegistry, OperationMetadata, ResourceMetadata } from '../metadata/types.js';

type Groups = OperationMetadata['normalizationGroups'] | undefined;

/** Whether two operations read the same groups (the same list in any order, the same function, or none). */
function sameGroups(a: Groups, b: Groups): boolean {
  if (!a || !b || typeof a === 'function' || typeof b === 'function') return (a ?? null) === (b ?? null);
  return a.length === b.length && a.every((group) => b.includes(group));
}

export interface ReadModel {
  readonly registry: MetadataRegistry;
  /** The operation whose groups an item of the resource reached by id or through a relation is read with. */
  itemOperation(resource: ResourceMetadata): OperationMetadata | undefined;
  /** The fields of a resource's or a shape's type: those the groups of the operations sending it reach. */
  typeGroups(resource: ResourceMetadata): ReadonlySet<string> | null;
  /**
   * Whether the items of a collection or custom read must remember the operation that read them: its groups are not
   * the item GET's (or it sends a shape), so their fields are not those of an item read by id.
   */
  remembers(resource: ResourceMetadata, operation: OperationMetadata): boolean;
  /**
   * Whether an item of the resource asks its reading operation's plan which fields it shows (see the file's header).
   */
  checksPerItem(owner: ResourceMetadata): boolean;
  /** Whether items of the resource may have been read by operations of other groups (they remember which). */
  groupsDiffer(resource: ResourceMetadata): boolean;
}

export function createReadModel(registry: MetadataRegistry): ReadModel {
  const itemOperation = (resource: ResourceMetadata) =>
    findBuiltinOperation(resource, 'get') ?? findBuiltinOperation(resource, 'getCollection');
  const listOperation = (resource: ResourceMetadata) =>
    findBuiltinOperation(resource, 'getCollection') ?? findBuiltinOperation(resource, 'get');
  /**
   * The custom operations of a resource that send its items (not a shape, not nothing): their groups shape its type.
   */
  const customReaders = (resource: ResourceMetadata) =>
    resource.operations.filter((o) => o.customName !== null && o.output === null && o.stages.serialize);
  /** The operations sending a shape's values. */
  const senders = (shape: ResourceMetadata) =>
    registry.resources.flatMap((resource) => resource.operations.filter((operation) => operation.output === shape));
  const readers = (resource: ResourceMetadata) =>
    resource.shape ? senders(resource) : [itemOperation(resource), listOperation(resource), ...customReaders(resource)];

  const differ = new Set(
    registry.resources
      .filter((resource) => {
        const item = itemOperation(resource)?.normalizationGroups;
        return (
          !sameGroups(item, listOperation(resource)?.normalizationGroups) ||
          customReaders(resource).some((o) => !sameGroups(item, o.normalizationGroups))
        );
      })
      .map((r) => r.name),
  );

  /** Adds the groups of operations to a set; null when one of them has none or chooses them per request. */
  function unionOfGroups(operations: readonly (OperationMetadata | undefined)[]): ReadonlySet<string> | null {
    const all = new Set<string>();
    for (const operation of operations) {
      const groups = toFixedGroups(operation?.normalizationGroups);
      if (!groups) return null;
      for (const group of groups) all.add(group);
    }
    return all;
  }

  function checksPerItem(owner: ResourceMetadata): boolean {
    // A shape's values remember their operation; its groups, when it has some, decide.
    if (owner.shape) return senders(owner).some((operation) => operation.normalizationGroups);
    if (differ.has(owner.name)) return readers(owner).some((operation) => operation?.normalizationGroups);
    return typeof itemOperation(owner)?.normalizationGroups === 'function';
  }

  return {
    registry,
    itemOperation,
    typeGroups: (resource) => unionOfGroups(readers(resource)),
    remembers: (resource, operation) =>
      operation.output !== null ||
      !sameGroups(itemOperation(resource)?.normalizationGroups, operation.normalizationGroups),
    checksPerItem,
    groupsDiffer: (resource) => differ.has(resource.name),
  };
}
