/**
 * The date filter: `createdAt[after]=` (>=), `[before]` (<=), `[strictly_after]` (>), `[strictly_before]` (<), with
 * a per-property choice of how null dates count (excluded by default).
 */
import type { DateNullMode } from '../../declare/types.js';
import type { ResolvedPath } from '../../metadata/property-path.js';
import { allOf, anyOf, compare, exists, not } from '../../metadata/conditions.js';
import type { Filter, FilterParameter } from '../../metadata/types.js';
import { defineFilter, singleValue } from '../filter.js';
import { toValueSchema, toDateValue } from './values.js';

export interface DateProperty {
  readonly resolved: ResolvedPath;
  readonly nulls: DateNullMode;
}

const OPERATORS = { after: '>=', before: '<=', strictly_after: '>', strictly_before: '<' } as const;
type Operator = keyof typeof OPERATORS;

export function createDateFilter(properties: readonly DateProperty[]): Filter {
  return defineFilter<{ property: DateProperty; conditions: [Operator, unknown][] }[]>({
    indexedPaths: properties.map((p) => p.resolved.path),
    describe: (): FilterParameter[] =>
      properties.flatMap(({ resolved }) =>
        (Object.keys(OPERATORS) as Operator[]).map((operator) => ({
          variable: `${resolved.path}[${operator}]`,
          property: resolved.path,
          required: false,
          schema: toValueSchema(resolved.leaf),
          isCollection: false,
          description: `${resolved.path} ${operator.replace('_', ' ')} the date.`,
        })),
      ),
    parse(query) {
      const parsed: { property: DateProperty; conditions: [Operator, unknown][] }[] = [];
      for (const property of properties) {
        const conditions: [Operator, unknown][] = [];
        for (const operator of Object.keys(OPERATORS) as Operator[]) {
          const variable = `${property.resolved.path}[${operator}]`;
          const raw = singleValue(query, variable);
          if (raw !== undefined) conditions.push([operator, toDateValue(variable, raw, property.resolved.leaf)]);
        }
        if (conditions.length > 0) parsed.push({ property, conditions });
      }
      return parsed.length === 0 ? undefined : parsed;
    },
    // The bounds on one property hold for the same related item (an `all` group on one path); a null date counts as
    // within a bound when the property says so.
    conditions: (parsed) =>
      parsed.map(({ property, conditions }) => {
        const { nulls, resolved } = property;
        return allOf(
          ...conditions.map(([operator, value]) => {
            const bound = compare(resolved.path, OPERATORS[operator], value);
            const before = operator === 'before' || operator === 'strictly_before';
            const includeNull =
              nulls === 'include_null_before_and_after' ||
              (before ? nulls === 'include_null_before' : nulls === 'include_null_after');
            return includeNull ? anyOf(bound, not(exists(resolved.path))) : bound;
          }),
        );
      }),
  });
}
