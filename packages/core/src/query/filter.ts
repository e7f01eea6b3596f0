/**
 * The filter contract. A filter describes the query parameters it reads (for `hydra:search` and OpenAPI), parses
 * their values (a bad value is a 400 naming the parameter, raised before anything is read), and says how it narrows or
 * orders the collection as data: conditions and order terms over property paths (`conditions.ts`), which the state
 * compiles (relation paths of any depth, bound values only).
 * The built-in filters (search, range, date, boolean, numeric, exists, order) implement this same contract.
 */
import { ApiError } from '../errors.js';
import type { ResourceMetadata } from '../metadata/types.js';
import type { QueryNode } from '../metadata/conditions.js';

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

export type { MatchPattern, NullsPlacement, OrderDirection } from '../metadata/conditions.js';

/** A filter of a resource's collection. `P` is what `parse` reads from the query string and `conditions` takes. */
export interface Filter<P = unknown> {
  /** The query parameters it reads. */
  describe(resource: ResourceMetadata): readonly FilterParameter[];
  /** Reads its parameters from the query; undefined when none of them is given. Throws 400 for invalid values. */
  parse(query: QueryParameters, resource: ResourceMetadata): P | undefined;
  /** What `parse` read, as conditions and order terms (`conditions.ts`): data the state compiles, never SQL but `raw`. */
  conditions(parsed: P, resource: ResourceMetadata): readonly QueryNode[];
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

/** Types and freezes a filter object: `defineFilter({ describe, parse, conditions })`. */
export const defineFilter = <P>(filter: Filter<P>): Filter => Object.freeze(filter) as Filter;
