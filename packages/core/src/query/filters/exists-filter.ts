/**
 * The exists filter: `exists[body]=true|false` — the property is (not) null; for a to-many relation, the item has
 * (no) related items. The parameter name (`exists`) is configurable.
 */
import type { ResolvedPath } from '../../metadata/property-path.js';
import { exists, not } from '../../metadata/conditions.js';
import type { Filter, FilterParameter } from '../../metadata/types.js';
import { defineFilter, singleValue } from '../filter.js';
import { toBoolean } from './values.js';

export function createExistsFilter(properties: readonly ResolvedPath[], parameterName: string): Filter {
  const variableOf = (resolved: ResolvedPath) => `${parameterName}[${resolved.path}]`;
  return defineFilter<{ resolved: ResolvedPath; exists: boolean }[]>({
    describe: (): FilterParameter[] =>
      properties.map((resolved) => ({
        variable: variableOf(resolved),
        property: resolved.path,
        required: false,
        schema: { type: 'boolean' as const },
        isCollection: false,
        description: `${resolved.path} has a value (true) or not (false).`,
      })),
    parse(query) {
      const parsed: { resolved: ResolvedPath; exists: boolean }[] = [];
      for (const resolved of properties) {
        const raw = singleValue(query, variableOf(resolved));
        if (raw !== undefined) parsed.push({ resolved, exists: toBoolean(variableOf(resolved), raw) });
      }
      return parsed.length === 0 ? undefined : parsed;
    },
    // Through relations, "no value" means: no related item has one (and having no related item at all counts).
    conditions: (parsed) =>
      parsed.map(({ resolved, exists: has }) => (has ? exists(resolved.path) : not(exists(resolved.path)))),
  });
}
