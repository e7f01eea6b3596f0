/**
 * Connection types and values: API Platform's Relay cursor connection (`<Type>CursorConnection` with edges, pageInfo
 * and totalCount) and its page-based one (`<Type>PageConnection` with collection and paginationInfo). The windows and
 * cursors themselves are `query/cursor-window.ts`'s.
 */
import {
  GraphQLBoolean,
  type GraphQLFieldConfigArgumentMap,
  GraphQLInt,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLString,
} from 'graphql';
import { encodeCursor } from '../query/cursor-window.js';
import type { CollectionPage, Entity } from '../metadata/types.js';
import type { PageRequest } from '../metadata/types.js';

/** The paging arguments of a cursor connection. */
export const pagingArgs: GraphQLFieldConfigArgumentMap = {
  first: { type: GraphQLInt },
  last: { type: GraphQLInt },
  before: { type: GraphQLString },
  after: { type: GraphQLString },
};

export function createCursorConnectionType(name: string, node: GraphQLObjectType): GraphQLObjectType {
  const edge = new GraphQLObjectType({
    name: `${name}Edge`,
    description: `Edge of ${name}.`,
    fields: { node: { type: node }, cursor: { type: new GraphQLNonNull(GraphQLString) } },
  });
  const pageInfo = new GraphQLObjectType({
    name: `${name}PageInfo`,
    description: `Information about the current page.`,
    fields: {
      endCursor: { type: GraphQLString },
      startCursor: { type: GraphQLString },
      hasNextPage: { type: new GraphQLNonNull(GraphQLBoolean) },
      hasPreviousPage: { type: new GraphQLNonNull(GraphQLBoolean) },
    },
  });
  return new GraphQLObjectType({
    name: `${name}CursorConnection`,
    description: `Cursor connection for ${name}.`,
    fields: {
      edges: { type: new GraphQLList(edge) },
      pageInfo: { type: new GraphQLNonNull(pageInfo) },
      totalCount: { type: new GraphQLNonNull(GraphQLInt) },
    },
  });
}

export function createPageConnectionType(name: string, node: GraphQLObjectType): GraphQLObjectType {
  return new GraphQLObjectType({
    name: `${name}PageConnection`,
    fields: {
      collection: { type: new GraphQLList(node) },
      paginationInfo: {
        type: new GraphQLNonNull(
          new GraphQLObjectType({
            name: `${name}PaginationInfo`,
            fields: {
              itemsPerPage: { type: GraphQLInt },
              lastPage: { type: GraphQLInt },
              totalCount: { type: GraphQLInt },
              currentPage: { type: GraphQLInt },
              hasNextPage: { type: GraphQLBoolean },
            },
          }),
        ),
      },
    },
  });
}

/** A cursor connection's value: the items from `offset`, out of `total`. */
export function toConnection(items: readonly (Entity | null)[], offset: number, total: number) {
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

/** A page connection's value: the page read and its numbers. */
export function toPageConnection(collection: CollectionPage, page: PageRequest | null) {
  const total = collection.totalItems ?? collection.items.length;
  const itemsPerPage = page?.itemsPerPage ?? total;
  const lastPage = itemsPerPage > 0 ? Math.max(1, Math.ceil(total / itemsPerPage)) : 1;
  const currentPage = page?.page ?? 1;
  return {
    collection: collection.items,
    paginationInfo: { itemsPerPage, lastPage, totalCount: total, currentPage, hasNextPage: currentPage < lastPage },
  };
}
