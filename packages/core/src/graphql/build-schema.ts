/**
 * The GraphQL schema, built from the metadata with graphql-js objects, following API Platform's conventions: a type
 * per resource (`id` is the IRI, `_id` the database id; the read groups decide the fields), an item query
 * `book(id: ID!)`, a collection query `books(first, last, before, after, <filters>)` as a Relay cursor connection (or
 * page-based), `createBook` / `updateBook` / `deleteBook` mutations taking `input`, and `node(id)`. Custom operations
 * are fields too: a custom read is a query `<resource><Name>` (`authorStats(id: ID!)`, a connection for a collection),
 * any other a mutation `<name><Resource>` (`publishArticle(input: { id, clientMutationId, … })`) whose payload holds the
 * resource or the output shape. Output shapes are object types named after them; computed fields are fields of their
 * resource's type, worked out from the item. Resolvers run the same pipeline as REST (execute.ts); relations resolve
 * through per-request batch loaders, never one query per item.
 */
import { builtinOperation } from '../metadata/builtin-operation.js';
import DataLoader from 'dataloader';
import {
  GraphQLBoolean,
  type GraphQLFieldConfig,
  type GraphQLFieldConfigArgumentMap,
  type GraphQLFieldConfigMap,
  GraphQLFloat,
  GraphQLID,
  type GraphQLInputFieldConfigMap,
  GraphQLInputObjectType,
  type GraphQLInputType,
  GraphQLInt,
  GraphQLInterfaceType,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  type GraphQLOutputType,
  type GraphQLResolveInfo,
  GraphQLScalarType,
  GraphQLSchema,
  GraphQLString,
  printSchema,
} from 'graphql';
import type { FieldMetadata, MetadataRegistry, OperationMetadata, ResourceMetadata, ScalarFieldMetadata } from '../metadata/types.js';
import { acceptsNested, writableFields, type WriteMode } from '../schema/input-schema.js';
import { grants, grantsField } from '../security/access.js';
import { formatDateTime } from '../serializer/datetime.js';
import { iriOf, parseIri } from '../serializer/iri.js';
import type { Entity } from '../state/contracts.js';
import { ApiError, DeclarationError } from '../errors.js';
import { toLowerFirst } from '../metadata/naming.js';
import { type Execution, execute, type GraphQLRequestContext, statusOf, toGraphQLError } from './execute.js';
import { selectedToOneRelations } from './selected-relations.js';
import type { OperationContext } from '../pipeline/operation-context.js';
import { buildFilterArguments } from './filter-args.js';
import { collectionQueryName, customMutationName, customQueryName, itemQueryName, mutationName } from './naming.js';
import { connectionExtensions, mutationExtensions } from './cost.js';
import { countsFromEnd, type CursorWindow, encodeCursor, spanOf } from '../query/cursor-window.js';

/** JSON values, as API Platform's GraphQL calls them. */
const Iterable = new GraphQLScalarType({ name: 'Iterable', description: 'Any JSON value.', serialize: (v) => v, parseValue: (v) => v });

const groupsOf = (operation: OperationMetadata | undefined): ReadonlySet<string> | null => {
  const groups = operation?.normalizationGroups;
  return Array.isArray(groups) ? new Set(groups as string[]) : null;
};
/** Whether two operations read the same groups (the same list in any order, the same function, or none). */
function sameGroups(a: OperationMetadata['normalizationGroups'] | undefined, b: OperationMetadata['normalizationGroups'] | undefined): boolean {
  if (!a || !b || typeof a === 'function' || typeof b === 'function') return (a ?? null) === (b ?? null);
  return a.length === b.length && a.every((group) => b.includes(group));
}

/**
 * The items of a collection query or a custom operation (and an output shape's values), and the operation that read
 * them (for their fields' groups).
 */
const readByOperation = new WeakMap<Entity, OperationMetadata>();

/** Computed fields' values, worked out once per item and request (an asynchronous function is awaited once). */
const computedValues = new WeakMap<Entity, Map<string, unknown>>();
function computedValue(entity: Entity, field: ScalarFieldMetadata): unknown {
  let values = computedValues.get(entity);
  if (!values) computedValues.set(entity, (values = new Map()));
  if (values.has(field.name)) return values.get(field.name);
  const value = field.computed!(entity);
  values.set(field.name, value);
  return value;
}

const writeGroupsOf = (operation: OperationMetadata | undefined): ReadonlySet<string> | null => {
  const groups = operation?.denormalizationGroups;
  return Array.isArray(groups) ? new Set(groups as string[]) : null;
};
const inGroups = (field: FieldMetadata, groups: ReadonlySet<string> | null) => groups === null || field.groups.some((g) => groups.has(g));

const scalarValue = (field: ScalarFieldMetadata, value: unknown) => (field.type === 'datetime' && value instanceof Date ? formatDateTime(value) : value ?? null);

function scalarType(field: ScalarFieldMetadata): GraphQLOutputType & GraphQLInputType {
  switch (field.type) {
    case 'integer':
      return GraphQLInt;
    case 'float':
      return GraphQLFloat;
    case 'boolean':
      return GraphQLBoolean;
    case 'json':
      return Iterable;
    case 'string[]':
      return new GraphQLList(GraphQLString);
    default:
      return GraphQLString;
  }
}

/** Per-request loaders: one batched read per resource and tick, whatever the number of items asking. */
const loaders = new WeakMap<GraphQLRequestContext, Map<string, DataLoader<number, Entity | null>>>();
function loaderFor(context: GraphQLRequestContext, resource: ResourceMetadata): DataLoader<number, Entity | null> {
  let byResource = loaders.get(context);
  if (!byResource) loaders.set(context, (byResource = new Map()));
  let loader = byResource.get(resource.name);
  if (!loader) {
    // Items only: the ids of their to-many relations are loaded when a query asks for them (linksLoaderFor).
    loader = new DataLoader(async (ids) => {
      const found = await context.runtime.readMany(resource, ids, []);
      const byId = new Map(found.map((item) => [item.id!, item]));
      return ids.map((id) => byId.get(id) ?? null);
    });
    byResource.set(resource.name, loader);
  }
  return loader;
}

/** Per request, per resource: the items read with a page (joined to it), by id. */
const joinedItems = new WeakMap<GraphQLRequestContext, Map<string, ReadonlyMap<number, Entity>>>();

/**
 * A collection's page for a resolver: the to-one relations the query selects on its items are joined to the page's
 * read when the state can. The items joined are kept for the request (`relatedItem`), so its loaders read only the
 * others. The page's items remember the operation that read them when its groups are not the item GET's.
 */
async function executeCollection(context: GraphQLRequestContext, execution: Execution, resource: ResourceMetadata, info: GraphQLResolveInfo | null, remembersCollection: boolean): Promise<OperationContext> {
  // An output shape's items have no relations to join (info null).
  const embed = info && selectedToOneRelations(resource, info);
  const result = await execute(context, embed ? { ...execution, embed } : execution);
  if (remembersCollection) for (const item of result.collection!.items) remember(item, execution.operation);
  const related = result.collection!.related;
  if (related) {
    let byResource = joinedItems.get(context);
    if (!byResource) joinedItems.set(context, (byResource = new Map()));
    for (const [name, items] of related) {
      const known = byResource.get(name);
      byResource.set(name, known ? new Map([...known, ...items]) : items);
    }
  }
  return result;
}

/** Keeps which operation read an item or a shape's values (objects only: a provider may return anything). */
function remember<T>(item: T, operation: OperationMetadata): T {
  if (item !== null && typeof item === 'object') readByOperation.set(item as Entity, operation);
  return item;
}

/**
 * The item a to-one relation names: a joined one at once (a plain value lets graphql-jit go on without waiting: on a
 * page of 10 books with their authors, 10 promises fewer), else through the request's batch loader.
 */
function relatedItem(context: GraphQLRequestContext, resource: ResourceMetadata, id: number): Entity | Promise<Entity | null> {
  return joinedItems.get(context)?.get(resource.name)?.get(id) ?? loaderFor(context, resource).load(id);
}

/** Per-request loaders of the ids a to-many relation holds, for the owners whose items came without them. */
const linkLoaders = new WeakMap<GraphQLRequestContext, Map<string, DataLoader<number, number[]>>>();
function linksLoaderFor(context: GraphQLRequestContext, owner: ResourceMetadata, field: string): DataLoader<number, number[]> {
  let byField = linkLoaders.get(context);
  if (!byField) linkLoaders.set(context, (byField = new Map()));
  let loader = byField.get(`${owner.name}.${field}`);
  if (!loader) {
    loader = new DataLoader(async (ids) => {
      const found = await context.runtime.readMany(owner, ids, [field]);
      const byId = new Map(found.map((item) => [item.id!, (item[field] as number[] | undefined) ?? []]));
      return ids.map((id) => byId.get(id) ?? []);
    });
    byField.set(`${owner.name}.${field}`, loader);
  }
  return loader;
}

/**
 * A mutation's write makes what the request read before it stale: its loaders and joined items are dropped, so the
 * fields resolved after it (its own payload's relations, the next mutations') read the rows as they are now. Mutations
 * run one after the other, so no read of the request is under way then.
 */
async function writing<T>(context: GraphQLRequestContext, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } finally {
    loaders.delete(context);
    linkLoaders.delete(context);
    joinedItems.delete(context);
  }
}

export function buildGraphQLSchema(registry: MetadataRegistry): GraphQLSchema {
  const objectTypes = new Map<string, GraphQLObjectType>();
  const shapeTypes = new Map<string, GraphQLObjectType>();
  const connections = new Map<string, GraphQLObjectType>();
  const nestedInputs = new Map<string, GraphQLInputObjectType>();

  const Node = new GraphQLInterfaceType({ name: 'Node', description: 'A node, according to the Relay specification.', fields: { id: { type: new GraphQLNonNull(GraphQLID), description: 'The id of this node.' } } });

  const operationOf = (resource: ResourceMetadata, kind: string) => builtinOperation(resource, kind as never);
  const itemOperation = (resource: ResourceMetadata) => operationOf(resource, 'get') ?? operationOf(resource, 'getCollection');
  const listOperation = (resource: ResourceMetadata) => operationOf(resource, 'getCollection') ?? operationOf(resource, 'get');
  /** The custom operations of a resource that send its items (not a shape, not nothing): their groups shape its type. */
  const customReaders = (resource: ResourceMetadata) => resource.operations.filter((o) => o.customName !== null && o.output === null && o.stages.serialize);
  /** Adds the groups of operations to a set; null when one of them has none or chooses them per request. */
  const unionOfGroups = (operations: readonly (OperationMetadata | undefined)[]): ReadonlySet<string> | null => {
    const all = new Set<string>();
    for (const operation of operations) {
      const groups = groupsOf(operation);
      if (!groups) return null;
      for (const group of groups) all.add(group);
    }
    return all;
  };
  /**
   * The fields of a resource's type: those the read groups of its item GET, its collection GET or a custom operation
   * sending its items reach (every readable field when one chooses its groups per request, or has none).
   */
  const readGroups = (resource: ResourceMetadata): ReadonlySet<string> | null =>
    unionOfGroups([itemOperation(resource), listOperation(resource), ...customReaders(resource)]);
  /**
   * Resources whose collection GET or a custom operation reads other groups than their item GET: their items remember
   * which read them.
   */
  const groupsDiffer = new Set(
    registry.resources
      .filter((resource) => {
        const item = itemOperation(resource)?.normalizationGroups;
        return !sameGroups(item, listOperation(resource)?.normalizationGroups) || customReaders(resource).some((o) => !sameGroups(item, o.normalizationGroups));
      })
      .map((r) => r.name),
  );
  /** Whether a custom operation's items must remember it: its read groups are not the item GET's, or it sends a shape. */
  const remembersOf = (resource: ResourceMetadata, operation: OperationMetadata) =>
    operation.output !== null || !sameGroups(itemOperation(resource)?.normalizationGroups, operation.normalizationGroups);

  /** Relay connection over a list of items already in hand (a to-many relation), sliced by first/after/last/before. */
  const pagingArgs: GraphQLFieldConfigArgumentMap = { first: { type: GraphQLInt }, last: { type: GraphQLInt }, before: { type: GraphQLString }, after: { type: GraphQLString } };

  /** A resource's or an output shape's Relay connection. */
  function connectionOf(resource: ResourceMetadata): GraphQLObjectType {
    let connection = connections.get(resource.name);
    if (connection) return connection;
    const node = typeOf(resource);
    const edge = new GraphQLObjectType({ name: `${resource.name}Edge`, description: `Edge of ${resource.name}.`, fields: { node: { type: node }, cursor: { type: new GraphQLNonNull(GraphQLString) } } });
    const pageInfo = new GraphQLObjectType({
      name: `${resource.name}PageInfo`,
      description: `Information about the current page.`,
      fields: { endCursor: { type: GraphQLString }, startCursor: { type: GraphQLString }, hasNextPage: { type: new GraphQLNonNull(GraphQLBoolean) }, hasPreviousPage: { type: new GraphQLNonNull(GraphQLBoolean) } },
    });
    connection = new GraphQLObjectType({
      name: `${resource.name}CursorConnection`,
      description: `Cursor connection for ${resource.name}.`,
      fields: { edges: { type: new GraphQLList(edge) }, pageInfo: { type: new GraphQLNonNull(pageInfo) }, totalCount: { type: new GraphQLNonNull(GraphQLInt) } },
    });
    connections.set(resource.name, connection);
    return connection;
  }

  function toConnection(items: readonly (Entity | null)[], offset: number, total: number) {
    const edges = items.map((node, index) => ({ node, cursor: encodeCursor(offset + index) }));
    return {
      edges,
      totalCount: total,
      pageInfo: {
        startCursor: edges[0]?.cursor ?? null,
        endCursor: edges[edges.length - 1]?.cursor ?? null,
        hasNextPage: offset + items.length < total,
        hasPreviousPage: offset > 0,
      },
    };
  }

  /**
   * A field resolves when the read groups of the operation that read its item reach it, as in REST: the collection
   * GET's for the items of a collection query, a custom operation's for its items and its output shape's values, the
   * item GET's for the others (an item query's, a relation's, a mutation's payload). The type holds the fields of all,
   * so a field outside them resolves to null; groups chosen per request by a function are worked out once per request
   * and operation.
   */
  const requestGroups = new WeakMap<GraphQLRequestContext, Map<OperationMetadata, ReadonlySet<string>>>();
  const listedGroups = new Map<OperationMetadata, ReadonlySet<string> | null>();
  function inRequestGroups(owner: ResourceMetadata, field: FieldMetadata, context: GraphQLRequestContext, entity: Entity): boolean {
    if (owner.shape) {
      const producer = readByOperation.get(entity);
      return !producer?.normalizationGroups || inGroups(field, operationGroups(producer, context));
    }
    const differ = groupsDiffer.has(owner.name);
    const operation = (differ && readByOperation.get(entity)) || itemOperation(owner);
    const declared = operation?.normalizationGroups;
    // Lists of groups shaped the type already, unless the operations' differ.
    if (!declared || (typeof declared !== 'function' && !differ)) return true;
    return inGroups(field, operationGroups(operation!, context));
  }
  /** The read groups of an operation in this request (it has some). */
  function operationGroups(operation: OperationMetadata, context: GraphQLRequestContext): ReadonlySet<string> | null {
    const declared = operation.normalizationGroups!;
    let groups: ReadonlySet<string> | null | undefined;
    if (typeof declared !== 'function') {
      groups = listedGroups.get(operation);
      if (groups === undefined) listedGroups.set(operation, (groups = groupsOf(operation)));
      return groups;
    }
    let byOperation = requestGroups.get(context);
    if (!byOperation) requestGroups.set(context, (byOperation = new Map()));
    groups = byOperation.get(operation);
    if (!groups) {
      groups = new Set(declared({ operation: { kind: operation.kind as never, resource: operation.resource, name: operation.name }, user: context.caller.user, roles: context.caller.roles }));
      byOperation.set(operation, groups);
    }
    return groups;
  }

  /**
   * An item reached through a relation shows only to callers its resource's item GET lets read it, as in API Platform's
   * GraphQL: a denied one resolves to null, with no error (the query asked for the relation, not for the item). Without
   * a rule the item passes as it is, so a page of books with public authors waits for nothing more.
   */
  function visible(context: GraphQLRequestContext, resource: ResourceMetadata, item: Entity | null | Promise<Entity | null>): Entity | null | Promise<Entity | null> {
    const rule = itemOperation(resource)?.security;
    if (!rule) return item;
    const check = (found: Entity | null): Entity | null | Promise<Entity | null> => {
      if (!found) return null;
      const granted = grants(rule.rule, context.caller, { object: found, previousObject: null, request: { method: 'GET', path: iriOf(resource, found.id!) } });
      return granted instanceof Promise ? granted.then((yes) => (yes ? found : null)) : granted ? found : null;
    };
    return item instanceof Promise ? item.then(check) : check(item);
  }

  function fieldConfig(owner: ResourceMetadata, field: FieldMetadata): GraphQLFieldConfig<Entity, GraphQLRequestContext> {
    const allowed = (entity: Entity, context: GraphQLRequestContext) =>
      inRequestGroups(owner, field, context, entity) && (!field.security || grantsField(field.security, context.caller, entity));
    if (field.kind === 'scalar') {
      return {
        type: scalarType(field),
        description: field.description,
        resolve: (entity, _args, context) => {
          if (!allowed(entity, context)) return null;
          if (field.computed) {
            // Worked out from the item (once per item and request), awaited when the function returns a promise.
            const computed = computedValue(entity, field);
            return computed instanceof Promise ? computed.then((value) => scalarValue(field, value)) : scalarValue(field, computed);
          }
          return scalarValue(field, entity[field.name]);
        },
      };
    }
    const target = registry.resource(field.target);
    if (field.kind === 'toOne') {
      return {
        type: objectTypeOf(target),
        description: field.description,
        resolve: (entity, _args, context) => {
          const id = entity[field.name];
          return allowed(entity, context) && typeof id === 'number' ? visible(context, target, relatedItem(context, target, id)) : null;
        },
      };
    }
    // Pages as the target's collection does (as in API Platform): an author with a million books gives a page of them,
    // not the million; `first` asks for more, up to the same maximum. A target without a collection GET pages with the
    // global settings; one whose collection is not paginated gives every item.
    const targetPagination = operationOf(target, 'getCollection')?.pagination ?? registry.pagination;
    const nestedPage = targetPagination.enabled
      ? { itemsPerPage: targetPagination.itemsPerPage, maximum: targetPagination.maximumItemsPerPage }
      : { itemsPerPage: Number.MAX_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER };
    return {
      type: connectionOf(target),
      description: field.description,
      args: pagingArgs,
      // The cost of a query counts the items of this page (cost.ts).
      extensions: connectionExtensions(targetPagination, 'relation'),
      resolve: async (entity, args, context) => {
        if (!allowed(entity, context)) return null;
        const ids = (entity[field.name] as number[] | undefined) ?? (await linksLoaderFor(context, owner, field.name).load(entity.id!));
        let span: { offset: number; limit: number };
        try {
          span = spanOf(args, nestedPage.itemsPerPage, nestedPage.maximum, ids.length);
        } catch (error) {
          throw toGraphQLError(error, context.log);
        }
        const { offset, limit } = span;
        const items = await loaderFor(context, target).loadMany(ids.slice(offset, offset + limit));
        const shown = await Promise.all(items.map((item) => (item instanceof Error ? null : visible(context, target, item))));
        return toConnection(shown, offset, ids.length);
      },
    };
  }

  function objectTypeOf(resource: ResourceMetadata): GraphQLObjectType {
    let type = objectTypes.get(resource.name);
    if (type) return type;
    type = new GraphQLObjectType<Entity, GraphQLRequestContext>({
      name: resource.name,
      description: resource.description,
      interfaces: [Node],
      fields: () => {
        const fields: GraphQLFieldConfigMap<Entity, GraphQLRequestContext> = {
          id: { type: new GraphQLNonNull(GraphQLID), resolve: (entity) => iriOf(resource, entity.id!) },
          _id: { type: new GraphQLNonNull(GraphQLInt), resolve: (entity) => entity.id },
        };
        const groups = readGroups(resource);
        for (const field of resource.fields) if (field.readable && inGroups(field, groups)) fields[field.name] = fieldConfig(resource, field);
        return fields;
      },
    });
    objectTypes.set(resource.name, type);
    return type;
  }

  /**
   * An output shape's object type, named after it: its readable fields that the read groups of the operations sending
   * it reach (all of them when one has none or chooses them per request). No `id`: a shape has no IRI.
   */
  function shapeTypeOf(shape: ResourceMetadata): GraphQLObjectType {
    let type = shapeTypes.get(shape.name);
    if (type) return type;
    type = new GraphQLObjectType<Entity, GraphQLRequestContext>({
      name: shape.name,
      description: shape.description,
      fields: () => {
        const fields: GraphQLFieldConfigMap<Entity, GraphQLRequestContext> = {};
        const senders = registry.resources.flatMap((resource) => resource.operations.filter((operation) => operation.output === shape));
        const groups = unionOfGroups(senders);
        for (const field of shape.fields) if (field.readable && inGroups(field, groups)) fields[field.name] = fieldConfig(shape, field);
        // GraphQL has no empty object type: a shape whose fields no read group reaches would send nothing anyway.
        if (Object.keys(fields).length === 0) {
          const sender = senders[0]!;
          throw new DeclarationError(
            `Shape "${shape.name}" (the output of Resource "${sender.resource}", operation "${sender.customName ?? sender.kind}"): none of its fields is readable in the operation's read groups, and a GraphQL type needs one; put its fields in the groups of ${sender.normalizationGroups && typeof sender.normalizationGroups !== 'function' ? JSON.stringify(sender.normalizationGroups) : 'the operation'}.`,
          );
        }
        return fields;
      },
    });
    shapeTypes.set(shape.name, type);
    return type;
  }

  /** The object type of a resource or of an output shape. */
  const typeOf = (resource: ResourceMetadata): GraphQLObjectType => (resource.shape ? shapeTypeOf(resource) : objectTypeOf(resource));

  function inputType(field: FieldMetadata, groups: ReadonlySet<string> | null, verb: string): GraphQLInputType {
    if (field.kind === 'scalar') return scalarType(field);
    if (field.kind === 'toMany') return new GraphQLList(GraphQLString);
    if (!acceptsNested(field, groups, registry)) return GraphQLString;
    const target = registry.resource(field.target);
    const name = `${verb}${target.name}NestedInput`;
    let nested = nestedInputs.get(name);
    if (!nested) {
      nested = new GraphQLInputObjectType({
        name,
        fields: () => {
          const fields: GraphQLInputFieldConfigMap = { id: { type: GraphQLID, description: 'The IRI of an existing item (to update it), or nothing to create one.' } };
          for (const f of writableFields(target, 'create', groups)) if (f.kind !== 'toOne' || !acceptsNested(f, groups, registry)) fields[f.name] = { type: inputType(f, groups, verb) };
          return fields;
        },
      });
      nestedInputs.set(name, nested);
    }
    return nested;
  }

  /**
   * GraphQL input → the JSON body the pipeline reads: the `id` of a nested object (a to-one relation's
   * `…NestedInput`) becomes its `@id`. Only those objects are renamed; a JSON field's value is passed as it is.
   */
  function toBody(input: Record<string, unknown>, resource: ResourceMetadata): Record<string, unknown> {
    const body: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(input)) {
      const field = resource.fields.find((f) => f.name === key);
      if (field?.kind !== 'toOne' || value === null || typeof value !== 'object' || Array.isArray(value)) {
        body[key] = value;
        continue;
      }
      const { id, ...rest } = value as Record<string, unknown>;
      const nested = toBody(rest, registry.resource(field.target));
      body[key] = id === undefined ? nested : { '@id': id, ...nested };
    }
    return body;
  }

  const queries: GraphQLFieldConfigMap<unknown, GraphQLRequestContext> = {
    node: {
      type: Node,
      args: { id: { type: new GraphQLNonNull(GraphQLID) } },
      resolve: async (_source, args: { id: string }, context) => {
        const parsed = parseIri(args.id, registry);
        const operation = parsed && operationOf(parsed.resource, 'get');
        if (!parsed || !operation) return null;
        const item = await itemOrNull(context, { operation, id: parsed.id });
        // graphql-js resolves the concrete type of the interface from `__typename`.
        return item && { ...item, __typename: parsed.resource.name };
      },
    },
  };
  const mutations: GraphQLFieldConfigMap<unknown, GraphQLRequestContext> = {};

  async function itemOrNull(context: GraphQLRequestContext, execution: Execution): Promise<Entity | null> {
    try {
      return (await execute(context, execution)).data;
    } catch (error) {
      // A missing item is null, as API Platform answers; anything else (401, 403) is an error.
      if (statusOf(error) === 404) return null;
      throw error;
    }
  }
  /** The id an IRI gives an item of the resource; null when it names none. */
  function idOfItem(resource: ResourceMetadata, iri: string): number | null {
    const parsed = parseIri(iri, registry);
    return parsed && parsed.resource === resource ? parsed.id : null;
  }

  /** The page-based connection of a resource's or an output shape's items. */
  const pageConnections = new Map<string, GraphQLObjectType>();
  function pageConnectionOf(resource: ResourceMetadata): GraphQLObjectType {
    let connection = pageConnections.get(resource.name);
    if (connection) return connection;
    connection = new GraphQLObjectType({
      name: `${resource.name}PageConnection`,
      fields: {
        collection: { type: new GraphQLList(typeOf(resource)) },
        paginationInfo: {
          type: new GraphQLNonNull(
            new GraphQLObjectType({
              name: `${resource.name}PaginationInfo`,
              fields: { itemsPerPage: { type: GraphQLInt }, lastPage: { type: GraphQLInt }, totalCount: { type: GraphQLInt }, currentPage: { type: GraphQLInt }, hasNextPage: { type: GraphQLBoolean } },
            }),
          ),
        },
      },
    });
    pageConnections.set(resource.name, connection);
    return connection;
  }

  /** What a custom operation's URI variables name: the item (`id`, an IRI) and the other variables, as strings. */
  type Target = { readonly id?: number | null; readonly variables?: Readonly<Record<string, string>> };
  /** No variables: the built-in operations' target. */
  const NO_TARGET: Target = {};
  /**
   * The arguments (or input fields) a custom operation's URI variables take: `id: ID!` (the item's IRI, as the item
   * query takes it) when the template has `{id}`, each other variable as `String!`. `target` reads them back; the id is
   * null when it is no IRI of the resource's items (the pipeline answers it as a missing item).
   */
  function uriArguments(resource: ResourceMetadata, operation: OperationMetadata | null) {
    const args: GraphQLFieldConfigArgumentMap & GraphQLInputFieldConfigMap = {};
    const others = operation ? operation.uriVariables.filter((variable) => variable !== 'id') : [];
    const withId = operation?.uriVariables.includes('id') ?? false;
    if (withId) args.id = { type: new GraphQLNonNull(GraphQLID), description: `The IRI of the ${resource.name}.` };
    for (const variable of others) args[variable] = { type: new GraphQLNonNull(GraphQLString), description: `The {${variable}} of ${operation!.uriTemplate}.` };
    const target = (values: Record<string, unknown>): Target => {
      if (!withId && others.length === 0) return NO_TARGET;
      let id: number | null | undefined;
      if (withId) id = idOfItem(resource, values.id as string);
      if (others.length === 0) return { id };
      const variables: Record<string, string> = {};
      for (const variable of others) variables[variable] = values[variable] as string;
      return id === undefined ? { variables } : { id, variables };
    };
    return { args, target, names: [...(withId ? ['id'] : []), ...others] };
  }

  /** Where a GraphQL name was given, for the messages of name clashes. */
  const owners = new Map<string, string>();
  const where = (resource: ResourceMetadata, operation: OperationMetadata) => `Resource "${resource.name}", operation "${operation.customName}"`;
  /** Merges argument (or input field) maps, refusing a name given twice (a URI variable named like a filter or a field). */
  function mergeArgs<T extends object>(resource: ResourceMetadata, operation: OperationMetadata | null, ...maps: T[]): T {
    const merged = {} as Record<string, unknown>;
    for (const map of maps) {
      for (const [name, config] of Object.entries(map)) {
        if (name in merged && operation) throw new DeclarationError(`${where(resource, operation)}: its GraphQL field takes "${name}" twice (a URI variable is named like a filter, a paging argument or an input field); rename the variable.`);
        merged[name] = config;
      }
    }
    return merged as T;
  }

  /**
   * A collection query over a collection GET, the built-in one or a custom one (then with its URI variables): a Relay
   * cursor connection, or page-based, of the resource's items or of its output shape's values.
   */
  function collectionQuery(resource: ResourceMetadata, list: OperationMetadata): GraphQLFieldConfig<unknown, GraphQLRequestContext> {
    const custom = list.customName !== null;
    const owner = list.output ?? resource;
    const filters = buildFilterArguments(resource);
    const pagination = list.pagination!;
    const remembers = custom ? remembersOf(resource, list) : groupsDiffer.has(resource.name);
    const uri = uriArguments(resource, custom ? list : null);
    // The to-one relations selected on the items are joined to the page's read; a shape has none.
    const selected = (info: GraphQLResolveInfo) => (list.output ? null : info);
    const description = custom ? list.description : undefined;
    if (pagination.type === 'page') {
      return {
        type: pageConnectionOf(owner),
        description,
        args: mergeArgs(resource, custom ? list : null, uri.args, { page: { type: GraphQLInt }, itemsPerPage: { type: GraphQLInt } }, filters.args),
        extensions: connectionExtensions(pagination, 'page'),
        resolve: async (_source, args: Record<string, unknown>, context, info) => {
          const query: Record<string, string | string[] | undefined> = { ...filters.toQuery(args) };
          if (args.page != null) query[pagination.pageParameterName] = String(args.page);
          if (args.itemsPerPage != null) query[pagination.itemsPerPageParameterName] = String(args.itemsPerPage);
          const result = await missingAsNull(executeCollection(context, { operation: list, query, ...uri.target(args) }, resource, selected(info), remembers));
          if (!result) return null;
          const page = result.page;
          const total = result.collection!.totalItems ?? result.collection!.items.length;
          const itemsPerPage = page?.itemsPerPage ?? total;
          const lastPage = itemsPerPage > 0 ? Math.max(1, Math.ceil(total / itemsPerPage)) : 1;
          return {
            collection: result.collection!.items,
            paginationInfo: { itemsPerPage, lastPage, totalCount: total, currentPage: page?.page ?? 1, hasNextPage: (page?.page ?? 1) < lastPage },
          };
        },
      };
    }
    return {
      type: connectionOf(owner),
      description,
      args: mergeArgs(resource, custom ? list : null, uri.args, pagingArgs, filters.args),
      extensions: connectionExtensions(pagination, 'cursor'),
      resolve: (_source, args: Record<string, unknown> & CursorWindow, context, info) => missingAsNull(cursorPage(context, args, info)),
    };

    /** A page of the cursor connection: the window is read by the pipeline, after the caller's access rule. */
    async function cursorPage(context: GraphQLRequestContext, args: Record<string, unknown> & CursorWindow, info: GraphQLResolveInfo) {
      const target = uri.target(args);
      const query = filters.toQuery(args);
      if (!pagination.enabled) {
        const all = (await executeCollection(context, { operation: list, query, page: null, ...target }, resource, selected(info), remembers)).collection!;
        return toConnection(all.items, 0, all.items.length);
      }
      const window: CursorWindow = { first: args.first, last: args.last, before: args.before, after: args.after };
      // `last` without `before` counts from the end: the total comes first.
      const total = countsFromEnd(window)
        ? (await execute(context, { operation: list, query, page: { page: 1, itemsPerPage: 0, offset: 0, partial: false, cursor: null }, ...target })).collection!.totalItems ?? 0
        : null;
      const result = await executeCollection(context, { operation: list, query, window: { window, total }, ...target }, resource, selected(info), remembers);
      const { items, totalItems } = result.collection!;
      return toConnection(items, result.page!.offset, totalItems ?? items.length);
    }
  }

  /** A collection under an IRI that names no item (a custom operation's `{id}`): null, as a missing item is. */
  async function missingAsNull<T>(read: Promise<T>): Promise<T | null> {
    try {
      return await read;
    } catch (error) {
      if (statusOf(error) === 404) return null;
      throw error;
    }
  }

  // The built-in names first, all of them: a custom operation's name that takes one is the custom operation's mistake.
  owners.set('node', 'the Relay node query');
  for (const resource of registry.resources) {
    if (operationOf(resource, 'get')) owners.set(itemQueryName(resource.name), `the item query of resource "${resource.name}"`);
    if (operationOf(resource, 'getCollection')) owners.set(collectionQueryName(resource.name), `the collection query of resource "${resource.name}"`);
    if (operationOf(resource, 'post')) owners.set(mutationName('create', resource.name), `the create mutation of resource "${resource.name}"`);
    if (operationOf(resource, 'patch') ?? operationOf(resource, 'put')) owners.set(mutationName('update', resource.name), `the update mutation of resource "${resource.name}"`);
    if (operationOf(resource, 'delete')) owners.set(mutationName('delete', resource.name), `the delete mutation of resource "${resource.name}"`);
  }
  /** Claims a custom operation's query or mutation name; a name another field has stops start-up. */
  function claim(name: string, resource: ResourceMetadata, operation: OperationMetadata, kind: 'query' | 'mutation'): string {
    const owner = owners.get(name);
    if (owner) throw new DeclarationError(`${where(resource, operation)}: its GraphQL ${kind} "${name}" is already ${owner}; give the operation another name.`);
    owners.set(name, `the GraphQL ${kind} of resource "${resource.name}", operation "${operation.customName}"`);
    return name;
  }
  /** The GraphQL types custom operations and shapes name, and who named them, for the messages of type name clashes. */
  const typeOwners = new Map<string, string>();

  for (const resource of registry.resources) {
    const type = objectTypeOf(resource);
    const get = operationOf(resource, 'get');
    const list = operationOf(resource, 'getCollection');
    if (get) {
      // An output shape on the item GET: the query answers the shape's values.
      const shape = get.output;
      queries[itemQueryName(resource.name)] = {
        type: shape ? shapeTypeOf(shape) : type,
        args: { id: { type: new GraphQLNonNull(GraphQLID) } },
        resolve: (_source, args: { id: string }, context) => {
          // An IRI of no item of the resource is null, as a missing item, once the rule had its say (a 401 first).
          const item = itemOrNull(context, { operation: get, id: idOf(args.id) });
          return shape ? item.then((values) => remember(values, get)) : item;
        },
      };
    }
    if (list) queries[collectionQueryName(resource.name)] = collectionQuery(resource, list);

    const payloadKey = itemQueryName(resource.name);
    const idOf = (iri: string) => idOfItem(resource, iri);
    const payload = (verb: string) =>
      new GraphQLObjectType({ name: `${verb}${resource.name}Payload`, fields: { [payloadKey]: { type }, clientMutationId: { type: GraphQLString } } });
    const input = (verb: string, mode: WriteMode, operation: OperationMetadata, withId: boolean) => {
      const groups = writeGroupsOf(operation);
      const fields: GraphQLInputFieldConfigMap = {};
      if (withId) fields.id = { type: new GraphQLNonNull(GraphQLID) };
      for (const field of writableFields(resource, mode, groups)) fields[field.name] = { type: inputType(field, groups, verb), description: field.description };
      fields.clientMutationId = { type: GraphQLString };
      return new GraphQLInputObjectType({ name: `${verb}${resource.name}Input`, fields });
    };
    const bodyOf = (values: Record<string, unknown>) => {
      const { id: _id, clientMutationId: _client, ...rest } = values;
      return toBody(rest, resource);
    };

    const post = operationOf(resource, 'post');
    if (post) {
      mutations[mutationName('create', resource.name)] = {
        type: payload('create'),
        args: { input: { type: new GraphQLNonNull(input('create', 'create', post, false)) } },
        extensions: mutationExtensions(registry, resource, 'create', writeGroupsOf(post)),
        resolve: async (_source, { input: values }: { input: Record<string, unknown> }, context) => ({
          [payloadKey]: (await writing(context, () => execute(context, { operation: post, body: bodyOf(values) }))).data,
          clientMutationId: values.clientMutationId ?? null,
        }),
      };
    }
    const update = operationOf(resource, 'patch') ?? operationOf(resource, 'put');
    if (update) {
      mutations[mutationName('update', resource.name)] = {
        type: payload('update'),
        args: { input: { type: new GraphQLNonNull(input('update', update.kind === 'patch' ? 'update' : 'replace', update, true)) } },
        extensions: mutationExtensions(registry, resource, update.kind === 'patch' ? 'update' : 'replace', writeGroupsOf(update)),
        resolve: async (_source, { input: values }: { input: Record<string, unknown> }, context) => {
          const written = await writeItem(context, { operation: update, id: idOf(values.id as string), body: bodyOf(values) }, values.id as string);
          return { [payloadKey]: written.data, clientMutationId: values.clientMutationId ?? null };
        },
      };
    }
    const remove = operationOf(resource, 'delete');
    if (remove) {
      mutations[mutationName('delete', resource.name)] = {
        type: payload('delete'),
        args: { input: { type: new GraphQLNonNull(new GraphQLInputObjectType({ name: `delete${resource.name}Input`, fields: { id: { type: new GraphQLNonNull(GraphQLID) }, clientMutationId: { type: GraphQLString } } })) } },
        resolve: async (_source, { input: values }: { input: Record<string, unknown> }, context) => {
          const removed = await writeItem(context, { operation: remove, id: idOf(values.id as string) }, values.id as string);
          return { [payloadKey]: { id: removed.id }, clientMutationId: values.clientMutationId ?? null };
        },
      };
    }

    // Custom operations, after the resource's built-in ones.
    for (const operation of resource.operations) {
      if (operation.customName === null || operation.kind === 'getSubresource') continue;
      if (operation.output) typeOwners.set(operation.output.name, `Shape "${operation.output.name}" (the output of ${where(resource, operation)})`);
      if (operation.kind === 'get' || operation.kind === 'getCollection') addCustomQuery(resource, operation);
      else addCustomMutation(resource, operation);
    }
  }

  /**
   * A custom read: the query `<resource><Name>` taking the template's variables; an item operation answers its item or
   * its output shape's values (null when missing, as the item query answers), a collection one a connection.
   */
  function addCustomQuery(resource: ResourceMetadata, operation: OperationMetadata): void {
    const name = claim(customQueryName(resource.name, operation.customName!), resource, operation, 'query');
    if (operation.kind === 'getCollection') {
      queries[name] = collectionQuery(resource, operation);
      return;
    }
    const uri = uriArguments(resource, operation);
    const remembers = remembersOf(resource, operation);
    queries[name] = {
      type: typeOf(operation.output ?? resource),
      description: operation.description,
      args: uri.args,
      resolve: async (_source, args: Record<string, unknown>, context) => {
        const data = await itemOrNull(context, { operation, ...uri.target(args) });
        if (!operation.stages.serialize) return null;
        return remembers ? remember(data, operation) : data;
      },
    };
  }

  /**
   * A custom write: the mutation `<name><Resource>` taking `input: <name><Resource>Input!` (the template's variables,
   * `clientMutationId`, and the input shape's fields or the resource's writable ones for its write mode, or nothing
   * more without body), answering `<name><Resource>Payload` with the resource (null without output) or the output
   * shape's values, under the resource's or the shape's name.
   */
  function addCustomMutation(resource: ResourceMetadata, operation: OperationMetadata): void {
    const name = claim(customMutationName(operation.customName!, resource.name), resource, operation, 'mutation');
    const uri = uriArguments(resource, operation);
    const groups = writeGroupsOf(operation);
    const source = operation.input ?? resource;
    const verb = `${operation.customName}${resource.name}`;
    const fields: GraphQLInputFieldConfigMap = {};
    if (operation.stages.deserialize) {
      const mode: WriteMode = operation.input ? 'create' : operation.writeMode!;
      for (const field of writableFields(source, mode, groups)) fields[field.name] = { type: inputType(field, groups, verb), description: field.description };
    }
    const inputName = `${verb}Input`;
    const payloadName = `${verb}Payload`;
    for (const typeName of [inputName, payloadName]) typeOwners.set(typeName, `${where(resource, operation)} (its GraphQL type "${typeName}")`);
    const mutationInput = new GraphQLInputObjectType({
      name: inputName,
      description: operation.input ? `The input of ${name}: the ${operation.input.name} shape's fields.` : undefined,
      fields: mergeArgs(resource, operation, uri.args as GraphQLInputFieldConfigMap, fields, { clientMutationId: { type: GraphQLString } }),
    });
    const output = operation.output;
    const key = toLowerFirst(output ? output.name : resource.name);
    const payloadType = new GraphQLObjectType({ name: payloadName, fields: { [key]: { type: typeOf(output ?? resource) }, clientMutationId: { type: GraphQLString } } });
    const remembers = remembersOf(resource, operation);
    mutations[name] = {
      type: payloadType,
      description: operation.description,
      args: { input: { type: new GraphQLNonNull(mutationInput) } },
      extensions: operation.stages.deserialize ? mutationExtensions(registry, source, operation.input ? 'create' : operation.writeMode!, groups) : undefined,
      resolve: async (_source, { input: values }: { input: Record<string, unknown> }, context) => {
        const target = uri.target(values);
        let body: Record<string, unknown> | undefined;
        if (operation.stages.deserialize) {
          body = {};
          for (const [field, value] of Object.entries(values)) if (field !== 'clientMutationId' && !uri.names.includes(field)) body[field] = value;
          body = toBody(body, source);
        }
        const result = await writeItem(context, { operation, ...target, ...(body === undefined ? {} : { body }) }, values.id as string);
        const data = operation.stages.serialize ? result.data : null;
        return { [key]: remembers ? remember(data, operation) : data, clientMutationId: values.clientMutationId ?? null };
      },
    };
  }

  /**
   * A mutation's write. An IRI that names no item of the resource (id null) goes through the pipeline all the same,
   * so an anonymous caller of a protected operation gets its 401 first; its 404 then names the IRI.
   */
  async function writeItem(context: GraphQLRequestContext, execution: Execution, iri: string): Promise<OperationContext> {
    try {
      return await writing(context, () => execute(context, execution));
    } catch (error) {
      if (execution.id === null && statusOf(error) === 404) throw toGraphQLError(new ApiError('ITEM_NOT_FOUND', `Item "${iri}" not found.`), context.log);
      throw error;
    }
  }

  try {
    return new GraphQLSchema({
      query: new GraphQLObjectType({ name: 'Query', fields: queries }),
      ...(Object.keys(mutations).length > 0 ? { mutation: new GraphQLObjectType({ name: 'Mutation', fields: mutations }) } : {}),
      types: [...objectTypes.values()],
    });
  } catch (error) {
    // Two types of one name: a shape or a custom operation's input or payload named like another type of the schema.
    const clash = /multiple types named "(\w+)"/.exec((error as Error).message)?.[1];
    const owner = clash && typeOwners.get(clash);
    if (owner) throw new DeclarationError(`${owner}: the GraphQL type "${clash}" is already the name of another type of the schema; rename it.`);
    throw error;
  }
}

/** The GraphQL schema of the resources as SDL (for clients, code generators and review). */
export function printGraphQLSchema(registry: MetadataRegistry): string {
  return printSchema(buildGraphQLSchema(registry));
}
