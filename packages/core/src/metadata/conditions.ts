/**
 * What a filter asks of a collection, as data: frozen conditions and orders over property paths (`title`,
 * `author.name`, `books.title`), holding the values as JavaScript values (a `Date`, a boolean, a number, a string, an
 * item's id). The state compiles them: the built-in SQL state into one statement (`state/sql/page-sql.ts`), a provider
 * of your own into whatever its store reads. Nothing in them is SQL but the `raw` node, the escape hatch.
 *
 * Through a relation, a condition holds when a related item meets it (for a to-many relation: at least one); the
 * conditions of one `all` or `any` group on the same relation path are met by the same related item. `not` holds when
 * the condition does not: through a to-many relation, when no related item meets it.
 */

/** Ascending or descending. */
export type OrderDirection = 'asc' | 'desc';
/** Where nulls sort: always first or last, or as the smallest / largest values. */
export type NullsPlacement = 'first' | 'last' | 'smallest' | 'largest';

/** Pattern matching as filters ask for it (`%` and `_` in the value match themselves); each store does its own. */
export interface MatchPattern {
  /** The text to find. */
  readonly value: string;
  /** `exact`: the whole value; `start`: a prefix; `end`: a suffix; `contains`: anywhere. */
  readonly anchor: 'exact' | 'start' | 'end' | 'contains';
  /** False: letters match whatever their case. */
  readonly caseSensitive: boolean;
}

/** How `compare` compares the property with its value. */
export type ComparisonOperator = '=' | '<>' | '<' | '<=' | '>' | '>=';

/** A condition on the items of a collection, as data (see the node functions below and docs/collections.md). */
export type Condition =
  | { readonly kind: 'compare'; readonly path: string; readonly operator: ComparisonOperator; readonly value: unknown }
  | { readonly kind: 'in'; readonly path: string; readonly values: readonly unknown[] }
  | { readonly kind: 'match'; readonly path: string; readonly pattern: MatchPattern }
  /** The property has a value (`exists: true`) or is null; through a to-many relation, some related item has one. */
  | { readonly kind: 'exists'; readonly path: string; readonly exists: boolean }
  | { readonly kind: 'all' | 'any'; readonly conditions: readonly Condition[] }
  | { readonly kind: 'not'; readonly condition: Condition }
  /**
   * SQL of your own, for what no other node says: `?` binds each of `bindings` in order, `{field}` names a column of
   * the resource itself (`{title}`). A store that is not SQL refuses it.
   */
  | { readonly kind: 'raw'; readonly sql: string; readonly bindings: readonly unknown[] };

/** An order term: by a property path through to-one relations only. Terms apply in the order given. */
export interface Order {
  readonly kind: 'order';
  readonly path: string;
  readonly direction: OrderDirection;
  readonly nulls: NullsPlacement;
}

/** What a filter returns: conditions (ANDed with every other filter's) and order terms. */
export type QueryNode = Condition | Order;

const freeze = <T extends object>(node: T): T => Object.freeze(node);

/** `path operator value`: `compare('pages', '>', 100)`. */
export const compare = (path: string, operator: ComparisonOperator, value: unknown): Condition =>
  freeze({ kind: 'compare', path, operator, value });
/** `path` is one of `values` (none: no item). */
export const isIn = (path: string, values: readonly unknown[]): Condition =>
  freeze({ kind: 'in', path, values: Object.freeze([...values]) });
/** `path` matches a pattern: `match('title', { value: 'dune', anchor: 'contains', caseSensitive: false })`. */
export const match = (path: string, pattern: MatchPattern): Condition =>
  freeze({ kind: 'match', path, pattern: freeze({ ...pattern }) });
/** `path` has a value (true) or is null (false). */
export const exists = (path: string, has = true): Condition => freeze({ kind: 'exists', path, exists: has });
/** Every condition holds (none: always). */
export const allOf = (...conditions: readonly Condition[]): Condition =>
  freeze({ kind: 'all', conditions: Object.freeze([...conditions]) });
/** At least one condition holds (none: never). */
export const anyOf = (...conditions: readonly Condition[]): Condition =>
  freeze({ kind: 'any', conditions: Object.freeze([...conditions]) });
/** The condition does not hold. */
export const not = (condition: Condition): Condition => freeze({ kind: 'not', condition });
/** SQL of your own: `raw('length({title}) > ?', [10])`. */
export const raw = (sql: string, bindings: readonly unknown[] = []): Condition =>
  freeze({ kind: 'raw', sql, bindings: Object.freeze([...bindings]) });
/** An order term: `orderBy('author.name', 'desc')`; nulls as the largest values unless told. */
export const orderBy = (path: string, direction: OrderDirection = 'asc', nulls: NullsPlacement = 'largest'): Order =>
  freeze({ kind: 'order', path, direction, nulls });

export const isOrder = (node: QueryNode): node is Order => node.kind === 'order';
