/**
 * The query fields: `node(id)`, a resource's item query `book(id: ID!)` (null when missing), its collection query
 * `books(first, last, before, after, <filters>)` as a Relay cursor connection (or page-based), and custom reads: the
 * query `<resource><Name>` taking the template's variables, answering the item or the output shape's values (null when
 * missing), or a connection for a collection operation. Each resolver hands its arguments to the pipeline and no more:
 * the parameters stage reads the window, the id and the filters, after the caller's access rule.
 */
import {
  type GraphQLFieldConfig,
  type GraphQLFieldConfigMap,
  GraphQLID,
  GraphQLInt,
  GraphQLNonNull,
  type GraphQLResolveInfo,
} from 'graphql';
import { findBuiltinOperation } from '../metadata/builtin-operation.js';
import type { OperationMetadata, ResourceMetadata } from '../metadata/types.js';
import { countsFromEnd, type CursorWindow } from '../query/cursor-window.js';
import { parseIri } from '../metadata/iri.js';
import { buildConnectionExtensions } from './cost.js';
import { pagingArgs, toConnection, toPageConnection } from './connections.js';
import { execute, type GraphQLRequestContext } from './execute.js';
import { buildFilterArguments } from './filter-args.js';
import { toCollectionQueryName, toCustomQueryName, toItemQueryName } from './naming.js';
import type { SchemaParts } from './schema-parts.js';
import { readItemOrNull, resolveMissingAsNull, readCollection } from './reads.js';
import { toItemId, mergeArgs, buildUriArguments } from './uri-arguments.js';

type QueryField = GraphQLFieldConfig<unknown, GraphQLRequestContext>;

/** The Relay node query: any item by its IRI. */
export function buildNodeQuery(parts: SchemaParts): QueryField {
  return {
    type: parts.types.Node,
    args: { id: { type: new GraphQLNonNull(GraphQLID) } },
    resolve: async (_source, args: { id: string }, context) => {
      const parsed = parseIri(args.id, parts.registry);
      const operation = parsed && findBuiltinOperation(parsed.resource, 'get');
      if (!parsed || !operation) return null;
      const item = await readItemOrNull(context, { operation, id: parsed.id });
      // graphql-js resolves the concrete type of the interface from `__typename`.
      return item && { ...item, __typename: parsed.resource.name };
    },
  };
}

/** A resource's item query, and its collection query, into `queries`. */
export function addResourceQueries(
  parts: SchemaParts,
  resource: ResourceMetadata,
  queries: GraphQLFieldConfigMap<unknown, GraphQLRequestContext>,
): void {
  const get = findBuiltinOperation(resource, 'get');
  const list = findBuiltinOperation(resource, 'getCollection');
  if (get) {
    // An output shape on the item GET: the query answers the shape's values.
    const shape = get.output;
    queries[toItemQueryName(resource.name)] = {
      type: parts.types.typeOf(shape ?? resource),
      args: { id: { type: new GraphQLNonNull(GraphQLID) } },
      resolve: (_source, args: { id: string }, context) => {
        // An IRI of no item of the resource is null, as a missing item, once the rule had its say (a 401 first).
        const item = readItemOrNull(context, { operation: get, id: toItemId(parts.registry, resource, args.id) });
        return shape ? item.then((values) => context.scope.remember(values, get)) : item;
      },
    };
  }
  if (list) queries[toCollectionQueryName(resource.name)] = collectionQuery(parts, resource, list);
}

/**
 * A collection query over a collection GET, the built-in one or a custom one (then with its URI variables): a Relay
 * cursor connection, or page-based, of the resource's items or of its output shape's values.
 */
function collectionQuery(parts: SchemaParts, resource: ResourceMetadata, list: OperationMetadata): QueryField {
  const custom = list.customName !== null;
  const owner = list.output ?? resource;
  const filters = buildFilterArguments(resource);
  const pagination = list.pagination!;
  const remembers = custom ? parts.model.remembers(resource, list) : parts.model.groupsDiffer(resource);
  const uri = buildUriArguments(parts.registry, resource, custom ? list : null);
  // The to-one relations selected on the items are joined to the page's read; a shape has none.
  const selected = (info: GraphQLResolveInfo) => (list.output ? null : info);
  const description = custom ? list.description : undefined;
  if (pagination.type === 'page') {
    return {
      type: parts.types.pageConnectionOf(owner),
      description,
      args: mergeArgs(
        resource,
        custom ? list : null,
        uri.args,
        { page: { type: GraphQLInt }, itemsPerPage: { type: GraphQLInt } },
        filters.args,
      ),
      extensions: buildConnectionExtensions(pagination, 'page'),
      resolve: async (_source, args: Record<string, unknown>, context, info) => {
        const query: Record<string, string | string[] | undefined> = { ...filters.toQuery(args) };
        if (args.page != null) query[pagination.pageParameterName] = String(args.page);
        if (args.itemsPerPage != null) query[pagination.itemsPerPageParameterName] = String(args.itemsPerPage);
        const result = await resolveMissingAsNull(
          readCollection(context, { operation: list, query, ...uri.target(args) }, resource, selected(info), remembers),
        );
        return result && toPageConnection(result.collection!, result.page);
      },
    };
  }

  /** A page of the cursor connection: the window is read by the pipeline, after the caller's access rule. */
  async function cursorPage(
    context: GraphQLRequestContext,
    args: Record<string, unknown> & CursorWindow,
    info: GraphQLResolveInfo,
  ) {
    const target = uri.target(args);
    const query = filters.toQuery(args);
    if (!pagination.enabled) {
      const all = (
        await readCollection(
          context,
          { operation: list, query, page: null, ...target },
          resource,
          selected(info),
          remembers,
        )
      ).collection!;
      return toConnection(all.items, 0, all.items.length);
    }
    const window: CursorWindow = { first: args.first, last: args.last, before: args.before, after: args.after };
    // `last` without `before` counts from the end: the total comes first.
    const total = countsFromEnd(window)
      ? ((
          await execute(context, {
            operation: list,
            query,
            page: { page: 1, itemsPerPage: 0, offset: 0, partial: false, cursor: null },
            ...target,
          })
        ).collection!.totalItems ?? 0)
      : null;
    const result = await readCollection(
      context,
      { operation: list, query, window: { window, total }, ...target },
      resource,
      selected(info),
      remembers,
    );
    const { items, totalItems } = result.collection!;
    return toConnection(items, result.page!.offset, totalItems ?? items.length);
  }

  return {
    type: parts.types.connectionOf(owner),
    description,
    args: mergeArgs(resource, custom ? list : null, uri.args, pagingArgs, filters.args),
    extensions: buildConnectionExtensions(pagination, 'cursor'),
    resolve: (_source, args: Record<string, unknown> & CursorWindow, context, info) =>
      resolveMissingAsNull(cursorPage(context, args, info)),
  };
}

/** A custom read: `<resource><Name>`, an item (or shape values, null when missing) or a connection. */
export function addCustomQuery(
  parts: SchemaParts,
  resource: ResourceMetadata,
  operation: OperationMetadata,
  queries: GraphQLFieldConfigMap<unknown, GraphQLRequestContext>,
): void {
  const name = parts.names.claim(toCustomQueryName(resource.name, operation.customName!), resource, operation, 'query');
  if (operation.kind === 'getCollection') {
    queries[name] = collectionQuery(parts, resource, operation);
    return;
  }
  const uri = buildUriArguments(parts.registry, resource, operation);
  const remembers = parts.model.remembers(resource, operation);
  queries[name] = {
    type: parts.types.typeOf(operation.output ?? resource),
    description: operation.description,
    args: uri.args,
    resolve: async (_source, args: Record<string, unknown>, context) => {
      const data = await readItemOrNull(context, { operation, ...uri.target(args) });
      if (!operation.stages.serialize) return null;
      return remembers ? context.scope.remember(data, operation) : data;
    },
  };
}
