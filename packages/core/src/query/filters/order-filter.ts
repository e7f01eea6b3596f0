/**
 * The order filter: `order[title]=asc|desc` (case-insensitive; empty means the property's default direction),
 * several combined in the order given, on relation paths through to-one relations (`order[author.name]`). The
 * parameter name (`order`) is configurable; where nulls go is set per property.
 */
import type { OrderPropertyOptions } from '../../declare/types.js';
import type { ResolvedPath } from '../../metadata/property-path.js';
import { type NullsPlacement, type OrderDirection, orderBy } from '../../metadata/conditions.js';
import type { Filter, FilterParameter } from '../../metadata/types.js';
import { defineFilter, invalidParameter } from '../filter.js';

export interface OrderProperty {
  readonly resolved: ResolvedPath;
  readonly options: Required<OrderPropertyOptions>;
}

export function createOrderFilter(properties: readonly OrderProperty[], parameterName: string): Filter {
  const byVariable = new Map(properties.map((p) => [`${parameterName}[${p.resolved.path}]`, p]));
  return defineFilter<{ property: OrderProperty; direction: OrderDirection; nulls: NullsPlacement }[]>({
    indexedPaths: properties.map((p) => p.resolved.path),
    describe: (): FilterParameter[] =>
      properties.map(({ resolved }) => ({
        variable: `${parameterName}[${resolved.path}]`,
        property: resolved.path,
        required: false,
        schema: { type: 'string' as const, enum: ['asc', 'desc'] },
        isCollection: false,
        description: `Order by ${resolved.path}.`,
      })),
    parse(query) {
      const parsed: { property: OrderProperty; direction: OrderDirection; nulls: NullsPlacement }[] = [];
      // The query object keeps the order of the query string: orders apply in the order the client gave them.
      for (const [variable, raw] of Object.entries(query)) {
        const property = byVariable.get(variable);
        if (!property || raw === undefined) continue;
        if (typeof raw !== 'string') throw invalidParameter(variable, 'give it once.');
        const value = raw.trim().toLowerCase();
        const direction = value === '' ? property.options.direction : value;
        if (direction !== 'asc' && direction !== 'desc')
          throw invalidParameter(variable, `expected "asc" or "desc", "${raw}" given.`);
        parsed.push({ property, direction, nulls: property.options.nulls });
      }
      return parsed.length === 0 ? undefined : parsed;
    },
    conditions: (parsed) =>
      parsed.map(({ property, direction, nulls }) => orderBy(property.resolved.path, direction, nulls)),
  });
}
