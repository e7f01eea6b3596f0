/**
 * The search filter: `title=ver` with a strategy per property (exact, partial, start, end, word_start and their
 * case-insensitive `i` variants), several values ORed (`title[]=a&title[]=b`), relations by IRI or id
 * (`author=/api/authors/3`), and relation paths of any depth (`author.name=ann`, `books.title=dune`).
 */
import type { SearchStrategy } from '../../declare/types.js';
import { ID_FIELD, type ResolvedPath } from '../../metadata/property-path.js';
import { anyOf, compare, type Condition, match, type MatchPattern } from '../../metadata/conditions.js';
import type { Filter, FilterParameter } from '../../metadata/types.js';
import { defineFilter } from '../filter.js';
import { valuesOf } from '../filter.js';
import { isText, type ReferenceTarget, toValueSchema, toLeafValue } from './values.js';

export interface SearchProperty {
  readonly resolved: ResolvedPath;
  readonly strategy: SearchStrategy;
}

const ANCHORS: Record<string, MatchPattern['anchor']> = {
  exact: 'exact',
  partial: 'contains',
  start: 'start',
  end: 'end',
};

/** The conditions one searched value gives: equality for a non-text property, else its strategy's patterns. */
function valueConditions({ strategy, resolved }: SearchProperty, value: unknown): Condition[] {
  if (!isText(resolved.leaf)) return [compare(resolved.path, '=', value)];
  const caseSensitive = !strategy.startsWith('i');
  const base = caseSensitive ? strategy : strategy.slice(1);
  const text = value as string;
  // A word's start: the value's start, or after a space.
  if (base === 'word_start')
    return [
      match(resolved.path, { value: text, anchor: 'start', caseSensitive }),
      match(resolved.path, { value: ` ${text}`, anchor: 'contains', caseSensitive }),
    ];
  return [match(resolved.path, { value: text, anchor: ANCHORS[base]!, caseSensitive })];
}

export function createSearchFilter(
  properties: readonly SearchProperty[],
  referenceOf: (resource: string) => ReferenceTarget,
  substringIndex = false,
): Filter {
  return defineFilter<{ property: SearchProperty; values: unknown[] }[]>({
    indexedPaths: properties.filter((p) => p.strategy === 'exact').map((p) => p.resolved.path),
    substringIndexedPaths: substringIndex
      ? properties.filter((p) => isText(p.resolved.leaf) && !p.strategy.endsWith('exact')).map((p) => p.resolved.path)
      : [],
    describe: (): FilterParameter[] =>
      properties.flatMap(({ resolved, strategy }) =>
        [resolved.path, `${resolved.path}[]`].map((variable) => ({
          variable,
          property: resolved.path,
          required: false,
          schema:
            resolved.leaf === ID_FIELD && referenceOf(resolved.owner).identifier.type === 'uuid'
              ? { type: 'string' as const, format: 'uuid' }
              : toValueSchema(resolved.leaf),
          isCollection: variable.endsWith('[]'),
          description: `Search on ${resolved.path} (${strategy}); several values match any of them.`,
        })),
      ),
    parse(query) {
      const parsed: { property: SearchProperty; values: unknown[] }[] = [];
      for (const property of properties) {
        const raw = valuesOf(query, property.resolved.path);
        if (raw.length === 0) continue;
        const variable = property.resolved.path;
        const values = isText(property.resolved.leaf)
          ? raw
          : raw.map((value) => toLeafValue(variable, value, property.resolved, referenceOf));
        parsed.push({ property, values });
      }
      return parsed.length === 0 ? undefined : parsed;
    },
    conditions: (parsed) =>
      parsed.map(({ property, values }) => anyOf(...values.flatMap((value) => valueConditions(property, value)))),
  });
}
