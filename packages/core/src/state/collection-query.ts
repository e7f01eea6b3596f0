/**
 * What a collection read asks for, as data: the conditions and order terms of every filter the request named (and of
 * the resource's `collectionFilter`), in the order given. The built-in state writes SQL from them; a provider of your
 * own interprets them as its store reads (see docs/collections.md, "Custom filters").
 */
import { type Condition, isOrder, type Order } from '../metadata/conditions.js';
import type { StateContext } from '../metadata/types.js';

/** A collection read's conditions and order terms. */
export interface CollectionQuery {
  /** ANDed: an item is read when it meets every one. */
  readonly conditions: readonly Condition[];
  /** Order terms, first first; the resource's default order and the id come after them. */
  readonly orders: readonly Order[];
}

/** The conditions and order terms of a collection read, from its context (`filters` and `resource`). */
export function collectionQuery(context: Pick<StateContext, 'filters' | 'resource'>): CollectionQuery {
  const conditions: Condition[] = [];
  const orders: Order[] = [];
  for (const { filter, parsed } of context.filters) {
    for (const node of filter.conditions(parsed, context.resource)) {
      if (isOrder(node)) orders.push(node);
      else conditions.push(node);
    }
  }
  return { conditions, orders };
}
