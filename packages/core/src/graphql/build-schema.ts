/**
 * The GraphQL schema, built from the metadata with graphql-js objects, following API Platform's conventions: a type
 * per resource (`id` is the IRI, `_id` the database id; the read groups decide the fields), an item query
 * `book(id: ID!)`, a collection query `books(first, last, before, after, <filters>)` as a Relay cursor connection (or
 * page-based), `createBook` / `updateBook` / `deleteBook` mutations taking `input`, and `node(id)`. Resolvers run the
 * same pipeline as REST (execute.ts); relations resolve through per-request batch loaders, never one query per item.
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
import { ApiError } from '../errors.js';
import { type Execution, execute, type GraphQLRequestContext, toGraphQLError } from './execute.js';
import { selectedToOneRelations } from './selected-relations.js';
import type { OperationContext } from '../pipeline/operation-context.js';
import { buildFilterArguments } from './filter-args.js';
import { collectionQueryName, itemQueryName, mutationName } from './naming.js';

/** JSON values, as API Platform's GraphQL calls them. */
const Iterable = new GraphQLScalarType({ name: 'Iterable', description: 'Any JSON value.', serialize: (v) => v, parseValue: (v) => v });

const encodeCursor = (offset: number) => Buffer.from(String(offset)).toString('base64');
const decodeCursor = (cursor: string): number => {
  const offset = Number(Buffer.from(cursor, 'base64').toString('utf8'));
  // A safe integer only: an offset of 1e20 would reach the SQL and fail there.
  if (!Number.isSafeInteger(offset) || offset < 0) throw new Error(`Cursor "${cursor}" is invalid.`);
  return offset;
};

const groupsOf = (operation: OperationMetadata | undefined): ReadonlySet<string> | null => {
  const groups = operation?.normalizationGroups;
  return Array.isArray(groups) ? new Set(groups as string[]) : null;
};
/** Whether two operations read the same groups (the same list in any order, the same function, or none). */
function sameGroups(a: OperationMetadata['normalizationGroups'] | undefined, b: OperationMetadata['normalizationGroups'] | undefined): boolean {
  if (!a || !b || typeof a === 'function' || typeof b === 'function') return (a ?? null) === (b ?? null);
  return a.length === b.length && a.every((group) => b.includes(group));
}

/** The items of a collection query, and the collection operation that read them (for their fields' groups). */
const readByCollection = new WeakMap<Entity, OperationMetadata>();

const writeGroupsOf = (operation: OperationMetadata | undefined): ReadonlySet<string> | null => {
  const groups = operation?.denormalizationGroups;
  return Array.isArray(groups) ? new Set(groups as string[]) : null;
};
const inGroups = (field: FieldMetadata, groups: ReadonlySet<string> | null) => groups === null || field.groups.some((g) => groups.has(g));

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
async function executeCollection(context: GraphQLRequestContext, execution: Execution, resource: ResourceMetadata, info: GraphQLResolveInfo, remembersCollection: boolean): Promise<OperationContext> {
  const embed = selectedToOneRelations(resource, info);
  const result = await execute(context, embed ? { ...execution, embed } : execution);
  if (remembersCollection) for (const item of result.collection!.items) readByCollection.set(item, execution.operation);
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
  const connections = new Map<string, GraphQLObjectType>();
  const nestedInputs = new Map<string, GraphQLInputObjectType>();

  const Node = new GraphQLInterfaceType({ name: 'Node', description: 'A node, according to the Relay specification.', fields: { id: { type: new GraphQLNonNull(GraphQLID), description: 'The id of this node.' } } });

  const operationOf = (resource: ResourceMetadata, kind: string) => builtinOperation(resource, kind as never);
  const itemOperation = (resource: ResourceMetadata) => operationOf(resource, 'get') ?? operationOf(resource, 'getCollection');
  const listOperation = (resource: ResourceMetadata) => operationOf(resource, 'getCollection') ?? operationOf(resource, 'get');
  /**
   * The fields of a resource's type: those the read groups of its item GET or its collection GET reach (every readable
   * field when either chooses its groups per request, or has none).
   */
  const readGroups = (resource: ResourceMetadata): ReadonlySet<string> | null => {
    const item = groupsOf(itemOperation(resource));
    const list = groupsOf(listOperation(resource));
    return item && list ? new Set([...item, ...list]) : null;
  };
  /** Resources whose collection GET reads other groups than their item GET: their items remember which read them. */
  const listGroupsDiffer = new Set(
    registry.resources.filter((resource) => !sameGroups(itemOperation(resource)?.normalizationGroups, listOperation(resource)?.normalizationGroups)).map((r) => r.name),
  );

  /** Relay connection over a list of items already in hand (a to-many relation), sliced by first/after/last/before. */
  const pagingArgs: GraphQLFieldConfigArgumentMap = { first: { type: GraphQLInt }, last: { type: GraphQLInt }, before: { type: GraphQLString }, after: { type: GraphQLString } };

  function connectionOf(resource: ResourceMetadata): GraphQLObjectType {
    let connection = connections.get(resource.name);
    if (connection) return connection;
    const node = objectTypeOf(resource);
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

  /** first/after/last/before → offset and limit, over `total` items (null: unknown yet, needed for `last` alone). */
  function window(args: { first?: number | null; last?: number | null; before?: string | null; after?: string | null }, fallback: number, maximum: number, total: number | null) {
    const clamp = (n: number) => Math.max(0, Math.min(n, maximum));
    if (args.last != null && args.first == null) {
      const end = args.before != null ? decodeCursor(args.before) : total ?? 0;
      const limit = clamp(args.last);
      return { offset: Math.max(0, end - limit), limit: Math.min(limit, end) };
    }
    const offset = args.after != null ? decodeCursor(args.after) + 1 : 0;
    let limit = clamp(args.first ?? fallback);
    if (args.before != null) limit = Math.min(limit, Math.max(0, decodeCursor(args.before) - offset));
    return { offset, limit };
  }

  /**
   * A field resolves when the read groups of the operation that read its item reach it, as in REST: the collection
   * GET's for the items of a collection query, the item GET's for the others (an item query's, a relation's, a
   * mutation's payload). The type holds the fields of both, so a field outside them resolves to null; groups chosen per
   * request by a function are worked out once per request and operation.
   */
  const requestGroups = new WeakMap<GraphQLRequestContext, Map<OperationMetadata, ReadonlySet<string>>>();
  const listedGroups = new Map<OperationMetadata, ReadonlySet<string> | null>();
  function inRequestGroups(owner: ResourceMetadata, field: FieldMetadata, context: GraphQLRequestContext, entity: Entity): boolean {
    const differ = listGroupsDiffer.has(owner.name);
    const operation = (differ && readByCollection.get(entity)) || itemOperation(owner);
    const declared = operation?.normalizationGroups;
    // Lists of groups shaped the type already, unless the two operations' differ.
    if (!declared || (typeof declared !== 'function' && !differ)) return true;
    let groups: ReadonlySet<string> | null | undefined;
    if (typeof declared !== 'function') {
      groups = listedGroups.get(operation!);
      if (groups === undefined) listedGroups.set(operation!, (groups = groupsOf(operation)));
    } else {
      let byOperation = requestGroups.get(context);
      if (!byOperation) requestGroups.set(context, (byOperation = new Map()));
      groups = byOperation.get(operation!);
      if (!groups) {
        groups = new Set(declared({ operation: { kind: operation!.kind as never, resource: owner.name, name: operation!.name }, user: context.caller.user, roles: context.caller.roles }));
        byOperation.set(operation!, groups);
      }
    }
    return inGroups(field, groups);
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
          const value = entity[field.name];
          return field.type === 'datetime' && value instanceof Date ? formatDateTime(value) : value ?? null;
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
      resolve: async (entity, args, context) => {
        if (!allowed(entity, context)) return null;
        const ids = (entity[field.name] as number[] | undefined) ?? (await linksLoaderFor(context, owner, field.name).load(entity.id!));
        const { offset, limit } = window(args, nestedPage.itemsPerPage, nestedPage.maximum, ids.length);
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
      if ((error as { extensions?: { status?: number } }).extensions?.status === 404) return null;
      throw error;
    }
  }

  for (const resource of registry.resources) {
    const type = objectTypeOf(resource);
    const get = operationOf(resource, 'get');
    const list = operationOf(resource, 'getCollection');
    if (get) {
      queries[itemQueryName(resource.name)] = {
        type,
        args: { id: { type: new GraphQLNonNull(GraphQLID) } },
        resolve: (_source, args: { id: string }, context) => {
          const parsed = parseIri(args.id, registry);
          if (!parsed || parsed.resource !== resource) return null;
          return itemOrNull(context, { operation: get, id: parsed.id });
        },
      };
    }
    if (list) {
      const filters = buildFilterArguments(resource);
      const pagination = list.pagination!;
      const remembers = listGroupsDiffer.has(resource.name);
      if (pagination.type === 'page') {
        const pageConnection = new GraphQLObjectType({
          name: `${resource.name}PageConnection`,
          fields: {
            collection: { type: new GraphQLList(type) },
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
        queries[collectionQueryName(resource.name)] = {
          type: pageConnection,
          args: { page: { type: GraphQLInt }, itemsPerPage: { type: GraphQLInt }, ...filters.args },
          resolve: async (_source, args: Record<string, unknown>, context, info) => {
            const query: Record<string, string | string[] | undefined> = { ...filters.toQuery(args) };
            if (args.page != null) query[pagination.pageParameterName] = String(args.page);
            if (args.itemsPerPage != null) query[pagination.itemsPerPageParameterName] = String(args.itemsPerPage);
            const result = await executeCollection(context, { operation: list, query }, resource, info, remembers);
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
      } else {
        queries[collectionQueryName(resource.name)] = {
          type: connectionOf(resource),
          args: { ...pagingArgs, ...filters.args },
          resolve: async (_source, args: Record<string, unknown> & { first?: number; last?: number; before?: string; after?: string }, context, info) => {
            const query = filters.toQuery(args);
            if (!pagination.enabled) {
              const all = (await executeCollection(context, { operation: list, query, page: null }, resource, info, remembers)).collection!;
              return toConnection(all.items, 0, all.items.length);
            }
            // `last` without `before` counts from the end: the total comes first.
            const total = args.last != null && args.first == null && args.before == null
              ? (await execute(context, { operation: list, query, page: { page: 1, itemsPerPage: 0, offset: 0, partial: false, cursor: null } })).collection!.totalItems ?? 0
              : null;
            let span: { offset: number; limit: number };
            try {
              span = window(args, pagination.itemsPerPage, pagination.maximumItemsPerPage, total);
            } catch (error) {
              throw new Error((error as Error).message);
            }
            const result = (await executeCollection(context, { operation: list, query, page: { page: 1, itemsPerPage: span.limit, offset: span.offset, partial: false, cursor: null } }, resource, info, remembers)).collection!;
            return toConnection(result.items, span.offset, result.totalItems ?? result.items.length);
          },
        };
      }
    }

    const payloadKey = itemQueryName(resource.name);
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
    const idOf = (iri: string): number | undefined => {
      const parsed = parseIri(iri, registry);
      return parsed && parsed.resource === resource ? parsed.id : undefined;
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
        resolve: async (_source, { input: values }: { input: Record<string, unknown> }, context) => {
          const id = idOf(values.id as string);
          if (id === undefined) throw await notFound(context, values.id as string);
          return { [payloadKey]: (await writing(context, () => execute(context, { operation: update, id, body: bodyOf(values) }))).data, clientMutationId: values.clientMutationId ?? null };
        },
      };
    }
    const remove = operationOf(resource, 'delete');
    if (remove) {
      mutations[mutationName('delete', resource.name)] = {
        type: payload('delete'),
        args: { input: { type: new GraphQLNonNull(new GraphQLInputObjectType({ name: `delete${resource.name}Input`, fields: { id: { type: new GraphQLNonNull(GraphQLID) }, clientMutationId: { type: GraphQLString } } })) } },
        resolve: async (_source, { input: values }: { input: Record<string, unknown> }, context) => {
          const id = idOf(values.id as string);
          if (id === undefined) throw await notFound(context, values.id as string);
          await writing(context, () => execute(context, { operation: remove, id }));
          return { [payloadKey]: { id }, clientMutationId: values.clientMutationId ?? null };
        },
      };
    }
  }

  async function notFound(context: GraphQLRequestContext, iri: string): Promise<Error> {
    return toGraphQLError(new ApiError('ITEM_NOT_FOUND', `Item "${iri}" not found.`), context.log);
  }

  return new GraphQLSchema({
    query: new GraphQLObjectType({ name: 'Query', fields: queries }),
    ...(Object.keys(mutations).length > 0 ? { mutation: new GraphQLObjectType({ name: 'Mutation', fields: mutations }) } : {}),
    types: [...objectTypes.values()],
  });
}

/** The GraphQL schema of the resources as SDL (for clients, code generators and review). */
export function printGraphQLSchema(registry: MetadataRegistry): string {
  return printSchema(buildGraphQLSchema(registry));
}
