/** The boolean (`available=true`) and numeric (`pages=3`, `pages[]=3&pages[]=4`) filters: equality, values ORed. */
import type { ResolvedPath } from '../../metadata/property-path.js';
import { isIn } from '../../metadata/conditions.js';
import type { Filter, FilterParameter } from '../../metadata/types.js';
import { defineFilter, singleValue, valuesOf } from '../filter.js';
import { isInteger, toValueSchema, toBoolean, toNumber } from './values.js';

function equalityFilter(
  properties: readonly ResolvedPath[],
  options: {
    many: boolean;
    indexed: boolean;
    describe: (path: string) => string;
    parse: (variable: string, raw: string, resolved: ResolvedPath) => unknown;
  },
): Filter {
  return defineFilter<{ resolved: ResolvedPath; values: unknown[] }[]>({
    indexedPaths: options.indexed ? properties.map((p) => p.path) : [],
    describe: (): FilterParameter[] =>
      properties.flatMap((resolved) =>
        (options.many ? [resolved.path, `${resolved.path}[]`] : [resolved.path]).map((variable) => ({
          variable,
          property: resolved.path,
          required: false,
          schema: toValueSchema(resolved.leaf),
          isCollection: variable.endsWith('[]'),
          description: options.describe(resolved.path),
        })),
      ),
    parse(query) {
      const parsed: { resolved: ResolvedPath; values: unknown[] }[] = [];
      for (const resolved of properties) {
        const raw = options.many
          ? valuesOf(query, resolved.path)
          : [singleValue(query, resolved.path)].filter((v): v is string => v !== undefined);
        if (raw.length > 0)
          parsed.push({ resolved, values: raw.map((value) => options.parse(resolved.path, value, resolved)) });
      }
      return parsed.length === 0 ? undefined : parsed;
    },
    conditions: (parsed) => parsed.map(({ resolved, values }) => isIn(resolved.path, values)),
  });
}

export const createBooleanFilter = (properties: readonly ResolvedPath[]): Filter =>
  equalityFilter(properties, {
    many: false,
    indexed: false,
    describe: (path) => `${path} is true or false.`,
    parse: (variable, raw) => toBoolean(variable, raw),
  });

export const createNumericFilter = (properties: readonly ResolvedPath[]): Filter =>
  equalityFilter(properties, {
    many: true,
    indexed: true,
    describe: (path) => `${path} equals the number; several values match any of them.`,
    parse: (variable, raw, resolved) => toNumber(variable, raw, isInteger(resolved.leaf)),
  });
