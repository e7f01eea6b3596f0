/**
 * The filter contract. A filter describes the query parameters it reads (for `hydra:search` and OpenAPI), parses
 * their values (a bad value is a 400 naming the parameter, raised before anything is read), and narrows or orders
 * the collection query through a `FilterQuery`, which hides the SQL: relation paths of any depth, bound values only.
 * The built-in filters (search, range, date, boolean, numeric, exists, order) implement this same contract.
 */
import type { Knex } from 'knex';
import { ApiError } from '../errors.js';
import type { ResourceMetadata } from '../metadata/types.js';

/** The query string as parsed: `order[title]` and `title[]` are literal keys. */
export type QueryParameters = Readonly<Record<string, string | string[] | undefined>>;

/** One query parameter a filter reads, as Hydra's `IriTemplateMapping` and OpenAPI describe it. */
export interface FilterParameter {
  /** The parameter name: `title`, `title[]`, `price[gte]`, `order[title]`. */
  readonly variable: string;
  /** The property it acts on (a path such as `author.name`), or null for a free-form parameter. */
  readonly property: string | null;
  readonly required: boolean;
  /** The JSON Schema type of one value. */
  readonly schema: { readonly type: 'string' | 'integer' | 'number' | 'boolean'; readonly enum?: readonly string[]; readonly format?: string };
  /** Several values may be given (`title[]=a&title[]=b`). */
  readonly isCollection: boolean;
  readonly description: string;
}

/** Ascending or descending. */
export type OrderDirection = 'asc' | 'desc';
/** Where nulls sort: always first or last, or as the smallest / largest values. */
export type NullsPlacement = 'first' | 'last' | 'smallest' | 'largest';

/** Pattern matching as filters ask for it; each dialect turns it into its own SQL. */
export interface MatchPattern {
  readonly value: string;
  /** `exact`: the whole value; `start`: a prefix; `end`: a suffix; `contains`: anywhere. */
  readonly anchor: 'exact' | 'start' | 'end' | 'contains';
  readonly caseSensitive: boolean;
}

/** What a filter sees of the query being built. Conditions on one `where` are ANDed with the others. */
export interface FilterQuery {
  /** The page query or the count query (ordering is ignored for the count). */
  readonly builder: Knex.QueryBuilder;
  readonly resource: ResourceMetadata;
  readonly db: Knex;
  /** True for the count query: `orderBy` does nothing. */
  readonly forCount: boolean;
  /**
   * Adds a condition on a property path (`title`, `author.name`, `books.title`): relations are followed with
   * sub-queries, so to-many paths never duplicate rows. `leaf` gets a builder and the qualified column. The condition
   * goes on `target` when given (a nested `where` group), else on the query itself.
   */
  where(path: string, leaf: (builder: Knex.QueryBuilder, column: string) => void, target?: Knex.QueryBuilder): void;
  /** Keeps only the items for which the same condition does NOT hold (through to-many paths: for none of the related items). */
  whereNot(path: string, leaf: (builder: Knex.QueryBuilder, column: string) => void, target?: Knex.QueryBuilder): void;
  /** The qualified column of a field of the resource itself, for conditions of your own: `column('title')`. */
  column(field: string): string;
  /** A filter value as the database stores it for the field at the end of `path` (dates, booleans differ by dialect). */
  toDb(path: string, value: unknown): unknown;
  /** A pattern condition on a column, with `%` and `_` in the value matching themselves. */
  match(builder: Knex.QueryBuilder, column: string, pattern: MatchPattern, or?: boolean): void;
  /** Orders by a property path (to-one relations only), in the order calls are made. */
  orderBy(path: string, direction: OrderDirection, nulls?: NullsPlacement): void;
}

/** A filter of a resource's collection. */
export interface Filter {
  /** The query parameters it reads. */
  describe(resource: ResourceMetadata): readonly FilterParameter[];
  /** Reads its parameters from the query; undefined when none of them is given. Throws 400 for invalid values. */
  parse(query: QueryParameters, resource: ResourceMetadata): unknown;
  /** Applies what `parse` returned. */
  apply(query: FilterQuery, parsed: unknown): void;
  /** Property paths whose columns deserve an index (schema sync creates them): equality, range and order filters. */
  readonly indexedPaths?: readonly string[];
  /** Property paths of text columns that deserve a trigram (substring) index: search filters with `substringIndex`. */
  readonly substringIndexedPaths?: readonly string[];
}

/** The 400 for a bad filter value, naming the parameter. */
export function invalidParameter(variable: string, reason: string): ApiError {
  return new ApiError('INVALID_PARAMETER', `Query parameter "${variable}": ${reason}`);
}

/** The values of a parameter given as `name=v`, `name=a&name=b` or `name[]=a&name[]=b`. */
export function valuesOf(query: QueryParameters, name: string): string[] {
  const plain = query[name];
  const listed = query[`${name}[]`];
  return [...(plain === undefined ? [] : Array.isArray(plain) ? plain : [plain]), ...(listed === undefined ? [] : Array.isArray(listed) ? listed : [listed])];
}

/** The single value of a parameter, or undefined; a repeated parameter is a 400. */
export function singleValue(query: QueryParameters, name: string): string | undefined {
  const value = query[name];
  if (Array.isArray(value)) throw invalidParameter(name, 'give it once.');
  return value;
}

/** Types and freezes a filter object: `defineFilter({ describe, parse, apply })`. */
export const defineFilter = (filter: Filter): Filter => Object.freeze(filter);
