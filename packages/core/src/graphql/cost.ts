/**
 * What a GraphQL operation may cost, counted in items as GitHub's GraphQL API counts its nodes: a connection asking for
 * `first: 100` may read 100 items, and each connection inside it may read its own page for each of them, so a
 * connection costs its page size times the page sizes of the connections around it (`books(first: 100) { edges { node
 * { author { books(first: 100) … } } } } }` is 100 + 100 × 100 = 10,100 items). A page size not asked for is the one
 * the resolver would use: the resource's `itemsPerPage`, a larger one clamped to its `maximumItemsPerPage`, a
 * collection that is not paginated counted at its `maximumItemsPerPage` (there is no page to go by). Variables count
 * with the request's values. A mutation that hashes a password (its input may carry a `password` field, its own or a
 * nested item's) costs `passwordWriteCost` items more: scrypt takes far longer than reading a row.
 *
 * The schema says which fields are connections and how they page (`extensions.resourceApiCost`, set by
 * output-types.ts and queries.ts where the resolvers take the same settings), so the walk needs nothing but the schema
 * and the document. It is linear: each fragment is measured once (a cost is proportional to the page sizes around it),
 * and runs on a validated document (mercurius's `preExecution` hook, which sees the variables), before any resolver.
 */
import {
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLSchema,
  getNamedType,
  isInterfaceType,
  isObjectType,
  Kind,
  type FieldNode,
  type OperationDefinitionNode,
  type SelectionSetNode,
  valueFromASTUntyped,
} from 'graphql';
import type { MetadataRegistry, ResourceMetadata } from '../metadata/types.js';
import { acceptsNested, listWritableFields, type WriteMode } from '../schema/input-schema.js';
import type { PaginationOptions } from '../metadata/types.js';

/** The key of a field's cost in its `extensions`. */
export const COST = 'resourceApiCost';

/** How a connection field pages: the argument that asks for a page size, the size when none is asked, the largest. */
export interface PageCost {
  /** `first` (with `last`, Relay cursors), `itemsPerPage` (page-based), or none (the page size is not the client's). */
  readonly argument: 'first' | 'itemsPerPage' | null;
  readonly itemsPerPage: number;
  readonly maximum: number;
}

/** What a field costs beyond nothing: a page of items, or a password to hash. */
export interface FieldCost {
  readonly page?: PageCost;
  readonly hashesPassword?: true;
}

type Paging = Pick<PaginationOptions, 'enabled' | 'itemsPerPage' | 'maximumItemsPerPage' | 'clientItemsPerPage'>;

/**
 * The extensions of a connection field, from the pagination its resolver uses: a collection query's (Relay or
 * page-based), or a to-many relation's (the target's collection's, read with `first`/`last` even when not paginated).
 */
export function buildConnectionExtensions(
  pagination: Paging,
  kind: 'cursor' | 'page' | 'relation',
): { [COST]: FieldCost } {
  const estimate = pagination.maximumItemsPerPage;
  let page: PageCost;
  if (!pagination.enabled)
    page =
      kind === 'relation'
        ? { argument: 'first', itemsPerPage: estimate, maximum: Number.POSITIVE_INFINITY }
        : { argument: null, itemsPerPage: estimate, maximum: estimate };
  else if (kind === 'page')
    page = {
      argument: pagination.clientItemsPerPage ? 'itemsPerPage' : null,
      itemsPerPage: pagination.itemsPerPage,
      maximum: pagination.maximumItemsPerPage,
    };
  else page = { argument: 'first', itemsPerPage: pagination.itemsPerPage, maximum: pagination.maximumItemsPerPage };
  return { [COST]: { page } };
}

/**
 * The extensions of a mutation writing `resource` in `mode` with these write groups: whether it may hash a password.
 */
export function buildMutationExtensions(
  registry: MetadataRegistry,
  resource: ResourceMetadata,
  mode: WriteMode,
  groups: ReadonlySet<string> | null,
): { [COST]: FieldCost } | undefined {
  return writesPassword(registry, resource, mode, groups, new Set()) ? { [COST]: { hashesPassword: true } } : undefined;
}

/** Whether a write may carry a password: a writable password field, or one of an item nested through a relation. */
function writesPassword(
  registry: MetadataRegistry,
  resource: ResourceMetadata,
  mode: WriteMode,
  groups: ReadonlySet<string> | null,
  seen: Set<string>,
): boolean {
  if (seen.has(resource.name)) return false;
  seen.add(resource.name);
  return listWritableFields(resource, mode, groups).some((field) => {
    if (field.kind === 'scalar') return field.type === 'password';
    return (
      field.kind === 'toOne' &&
      acceptsNested(field, groups, registry) &&
      writesPassword(registry, registry.resource(field.target), 'create', groups, seen)
    );
  });
}

/** What the limits weigh: the items of a mutation that hashes a password. */
export interface CostWeights {
  readonly passwordWrite: number;
}

/** The items an operation may read (and its password writes' weight), and its root fields, fragments expanded. */
export interface OperationCost {
  readonly nodes: number;
  readonly rootFields: number;
}

/** Costs of operations that take no variables: the same for every request of that document. */
const fixedCosts = new WeakMap<DocumentNode, Map<OperationDefinitionNode, OperationCost>>();

/** The cost of one operation of a validated document, with the request's variables. */
export function computeOperationCost(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Readonly<Record<string, unknown>> | undefined,
  weights: CostWeights,
): OperationCost {
  const fixed = (operation.variableDefinitions?.length ?? 0) === 0;
  const known = fixed ? fixedCosts.get(document)?.get(operation) : undefined;
  if (known) return known;
  const cost = measureOperation(schema, document, operation, variables, weights);
  if (fixed) {
    let byOperation = fixedCosts.get(document);
    if (!byOperation) fixedCosts.set(document, (byOperation = new Map()));
    byOperation.set(operation, cost);
  }
  return cost;
}

function measureOperation(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Readonly<Record<string, unknown>> | undefined,
  weights: CostWeights,
): OperationCost {
  // The values the arguments see: the request's variables over the operation's defaults.
  const values: Record<string, unknown> = {};
  for (const definition of operation.variableDefinitions ?? []) {
    if (definition.defaultValue) values[definition.variable.name.value] = valueFromASTUntyped(definition.defaultValue);
  }
  for (const [name, value] of Object.entries(variables ?? {})) if (value !== undefined) values[name] = value;

  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions)
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  // A fragment's cost for one item around it (and its top-level fields): around n items, it costs n times as much.
  const measured = new Map<string, { nodes: number; top: number }>();
  const measuring = new Set<string>();

  const number = (field: FieldNode, name: string): number | undefined => {
    const argument = field.arguments?.find((a) => a.name.value === name);
    const value = argument && valueFromASTUntyped(argument.value, values);
    return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
  };
  /** The items a connection field may read, as its resolver would page it. */
  const pageSize = (field: FieldNode, page: PageCost): number => {
    const clamp = (asked: number) => Math.max(0, Math.min(asked, page.maximum));
    if (page.argument === 'first') {
      const asked = number(field, 'first') ?? number(field, 'last');
      return asked === undefined ? page.itemsPerPage : clamp(asked);
    }
    if (page.argument === 'itemsPerPage') {
      const asked = number(field, 'itemsPerPage');
      return asked === undefined ? page.itemsPerPage : clamp(asked);
    }
    return page.itemsPerPage;
  };

  const measure = (
    selections: SelectionSetNode | undefined,
    type: GraphQLNamedType | undefined,
  ): { nodes: number; top: number } => {
    let nodes = 0;
    let top = 0;
    for (const selection of selections?.selections ?? []) {
      if (selection.kind === Kind.FIELD) {
        nodes += measureField(selection, type);
        top += 1;
        continue;
      }
      const inner =
        selection.kind === Kind.INLINE_FRAGMENT
          ? measure(
              selection.selectionSet,
              selection.typeCondition ? schema.getType(selection.typeCondition.name.value) : type,
            )
          : measureFragment(selection.name.value);
      nodes += inner.nodes;
      top += inner.top;
    }
    return { nodes, top };
  };
  const measureField = (node: FieldNode, parent: GraphQLNamedType | undefined): number => {
    // `__typename`, `__schema`, `__type` and names validation would refuse are not in the map: they read nothing.
    const field: GraphQLField<unknown, unknown> | undefined =
      parent && (isObjectType(parent) || isInterfaceType(parent)) ? parent.getFields()[node.name.value] : undefined;
    if (!field) return 0;
    const cost = field.extensions[COST] as FieldCost | undefined;
    const below = measure(node.selectionSet, getNamedType(field.type)).nodes;
    if (cost?.page) {
      const size = pageSize(node, cost.page);
      // An empty page reads nothing below it (and 0 × Infinity would be NaN).
      return size === 0 ? 0 : size + size * below;
    }
    return (cost?.hashesPassword ? weights.passwordWrite : 0) + below;
  };
  const measureFragment = (name: string): { nodes: number; top: number } => {
    const known = measured.get(name);
    if (known) return known;
    const fragment = fragments.get(name);
    // Validation refused cycles and unknown fragments before this runs; this only keeps the walk finite regardless.
    if (!fragment || measuring.has(name)) return { nodes: 0, top: 0 };
    measuring.add(name);
    const result = measure(fragment.selectionSet, schema.getType(fragment.typeCondition.name.value));
    measuring.delete(name);
    measured.set(name, result);
    return result;
  };

  const root =
    operation.operation === 'mutation'
      ? schema.getMutationType()
      : operation.operation === 'subscription'
        ? schema.getSubscriptionType()
        : schema.getQueryType();
  const { nodes, top } = measure(operation.selectionSet, root ?? undefined);
  return { nodes, rootFields: top };
}
