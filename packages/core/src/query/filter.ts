/**
 * What filters share: the 400 for a bad value naming its parameter, the values of a parameter, and `defineFilter`,
 * which types and freezes a filter object. The filter contract itself (`Filter`) is in `metadata/types.ts`, beside
 * the metadata it reads; the built-in filters (`filters/`) implement it with these helpers, as a custom filter does.
 */
import { ApiError } from '../errors.js';
import type { Filter, QueryParameters } from '../metadata/types.js';

/** The 400 for a bad filter value, naming the parameter. */
export function invalidParameter(variable: string, reason: string): ApiError {
  return new ApiError('INVALID_PARAMETER', `Query parameter "${variable}": ${reason}`);
}

/** The values of a parameter given as `name=v`, `name=a&name=b` or `name[]=a&name[]=b`. */
export function valuesOf(query: QueryParameters, name: string): string[] {
  const plain = query[name];
  const listed = query[`${name}[]`];
  return [
    ...(plain === undefined ? [] : Array.isArray(plain) ? plain : [plain]),
    ...(listed === undefined ? [] : Array.isArray(listed) ? listed : [listed]),
  ];
}

/** The single value of a parameter, or undefined; a repeated parameter is a 400. */
export function singleValue(query: QueryParameters, name: string): string | undefined {
  const value = query[name];
  if (Array.isArray(value)) throw invalidParameter(name, 'give it once.');
  return value;
}

/** Types and freezes a filter object: `defineFilter({ describe, parse, conditions })`. */
export const defineFilter = <P>(filter: Filter<P>): Filter => Object.freeze(filter) as Filter;
