/**
 * The range filter on numbers and dates: `price[gt]=`, `[gte]`, `[lt]`, `[lte]` and `[between]=10..20` (both bounds
 * included). Several operators on one property combine with AND.
 */
import type { ResolvedPath } from '../../metadata/property-path.js';
import { allOf, compare, type ComparisonOperator } from '../../metadata/conditions.js';
import type { Filter, FilterParameter } from '../../metadata/types.js';
import { defineFilter, invalidParameter, singleValue } from '../filter.js';
import { isInteger, isNumeric, toValueSchema, toDateValue, toNumber } from './values.js';

const OPERATORS = { gt: '>', gte: '>=', lt: '<', lte: '<=' } as const;
type Operator = keyof typeof OPERATORS | 'between';

export function createRangeFilter(properties: readonly ResolvedPath[]): Filter {
  const convert = (resolved: ResolvedPath, variable: string, raw: string) =>
    // Bounds of an integer column are integers too: `pages[gt]=1.5` would fail in PostgreSQL's SQL, not just match
    // less.
    isNumeric(resolved.leaf)
      ? toNumber(variable, raw, isInteger(resolved.leaf))
      : toDateValue(variable, raw, resolved.leaf);

  return defineFilter<{ resolved: ResolvedPath; conditions: [ComparisonOperator, unknown][] }[]>({
    indexedPaths: properties.map((p) => p.path),
    describe: (): FilterParameter[] =>
      properties.flatMap((resolved) =>
        (['between', 'gt', 'gte', 'lt', 'lte'] as const).map((operator) => ({
          variable: `${resolved.path}[${operator}]`,
          property: resolved.path,
          required: false,
          schema: operator === 'between' ? { type: 'string' as const } : toValueSchema(resolved.leaf),
          isCollection: false,
          description:
            operator === 'between'
              ? `${resolved.path} between two bounds, both included: "min..max".`
              : `${resolved.path} ${OPERATORS[operator]} the value.`,
        })),
      ),
    parse(query) {
      const parsed: { resolved: ResolvedPath; conditions: [ComparisonOperator, unknown][] }[] = [];
      for (const resolved of properties) {
        const conditions: [ComparisonOperator, unknown][] = [];
        for (const operator of ['gt', 'gte', 'lt', 'lte', 'between'] as Operator[]) {
          const variable = `${resolved.path}[${operator}]`;
          const raw = singleValue(query, variable);
          if (raw === undefined) continue;
          if (operator !== 'between') {
            conditions.push([OPERATORS[operator], convert(resolved, variable, raw)]);
            continue;
          }
          const bounds = raw.split('..');
          if (bounds.length !== 2 || bounds[0] === '' || bounds[1] === '')
            throw invalidParameter(variable, `expected "min..max", "${raw}" given.`);
          conditions.push(
            ['>=', convert(resolved, variable, bounds[0]!)],
            ['<=', convert(resolved, variable, bounds[1]!)],
          );
        }
        if (conditions.length > 0) parsed.push({ resolved, conditions });
      }
      return parsed.length === 0 ? undefined : parsed;
    },
    // The bounds on one property hold for the same related item (an `all` group on one path).
    conditions: (parsed) =>
      parsed.map(({ resolved, conditions }) =>
        allOf(...conditions.map(([operator, value]) => compare(resolved.path, operator, value))),
      ),
  });
}
