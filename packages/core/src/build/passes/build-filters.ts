/**
 * Pass 4: the filters of a resource and its default order. Built-in declarations become filter objects (with their
 * property paths resolved and checked against the field types); custom filters are kept as given. Unknown
 * properties, strategies or filter types fail at start-up with "did you mean".
 */
import type {
  DateNullMode,
  FilterDeclaration,
  OrderPropertyOptions,
  ResourceDeclaration,
  SearchStrategy,
} from '../../declare/types.js';
import { DeclarationError } from '../../errors.js';
import { createDateFilter } from '../../query/filters/date-filter.js';
import { createBooleanFilter, createNumericFilter } from '../../query/filters/equality-filters.js';
import { createExistsFilter } from '../../query/filters/exists-filter.js';
import { createOrderFilter } from '../../query/filters/order-filter.js';
import { createRangeFilter } from '../../query/filters/range-filter.js';
import { createSearchFilter } from '../../query/filters/search-filter.js';
import { isNumeric, isTemporal, isText, type ReferenceTarget } from '../../query/filters/values.js';
import { formatDidYouMean } from '../../metadata/did-you-mean.js';
import { type ResolvedPath, resolvePath } from '../../metadata/property-path.js';
import type { FieldMetadata, Filter } from '../../metadata/types.js';

export const FILTER_TYPES = ['search', 'range', 'date', 'boolean', 'numeric', 'exists', 'order'] as const;
const STRATEGIES: readonly SearchStrategy[] = [
  'exact',
  'partial',
  'start',
  'end',
  'word_start',
  'iexact',
  'ipartial',
  'istart',
  'iend',
  'iword_start',
];
const NULL_MODES: readonly DateNullMode[] = [
  'exclude_null',
  'include_null_before',
  'include_null_after',
  'include_null_before_and_after',
];

export interface FilterContext {
  readonly fieldsOf: (resource: string) => readonly FieldMetadata[];
  readonly referenceOf: (resource: string) => ReferenceTarget;
  readonly orderParameterName: string;
  readonly existsParameterName: string;
}

export interface BuiltFilters {
  readonly filters: readonly Filter[];
  readonly defaultOrder: readonly { readonly path: string; readonly direction: 'asc' | 'desc' }[];
}

const isCustom = (declaration: FilterDeclaration): declaration is Filter =>
  typeof (declaration as Filter).describe === 'function' &&
  (typeof (declaration as Filter).conditions === 'function' ||
    typeof (declaration as { apply?: unknown }).apply === 'function');

function substringIndexOption(entry: { substringIndex?: unknown }, where: string): boolean {
  const { substringIndex } = entry;
  if (substringIndex !== undefined && typeof substringIndex !== 'boolean')
    throw new DeclarationError(`${where}: "substringIndex" must be true or false.`);
  return substringIndex === true;
}

export function buildFilters(declaration: ResourceDeclaration, context: FilterContext): BuiltFilters {
  const resource = declaration.name;
  const resolve = (path: string, where: string) => resolvePath(path, resource, context.fieldsOf, where);
  // biome-ignore lint/suspicious/useIterableCallbackReturn: the switch at the end returns for every filter type
  const filters = (declaration.filters ?? []).map((entry, index): Filter => {
    if (entry === null || typeof entry !== 'object')
      throw new DeclarationError(
        `Resource "${resource}", filter #${index + 1}: a filter is a declaration object or a Filter.`,
      );
    if (isCustom(entry)) {
      // The contract before conditions: `apply(query)` wrote knex queries; a filter now returns its conditions as data.
      if (typeof entry.conditions !== 'function') {
        throw new DeclarationError(
          `Resource "${resource}", filter #${index + 1}: a custom Filter returns its conditions now (conditions(parsed) instead of apply(query)); see docs/collections.md, "Custom filters".`,
        );
      }
      if (typeof entry.parse !== 'function')
        throw new DeclarationError(
          `Resource "${resource}", filter #${index + 1}: a custom Filter needs describe(), parse() and conditions().`,
        );
      return entry;
    }
    const type = String((entry as { type?: unknown }).type);
    const where = `Resource "${resource}", ${type} filter`;
    if (!(FILTER_TYPES as readonly string[]).includes(type)) {
      throw new DeclarationError(
        `Resource "${resource}", filter #${index + 1}: unknown filter type "${type}".${formatDidYouMean(type, FILTER_TYPES)} Known types: ${FILTER_TYPES.join(', ')}, or a custom Filter object.`,
      );
    }
    const { properties } = entry;
    if (properties === null || typeof properties !== 'object')
      throw new DeclarationError(`${where}: "properties" must be a list or an object.`);
    const entries: [string, unknown][] = Array.isArray(properties)
      ? properties.map((p) => [p, undefined])
      : Object.entries(properties);
    if (entries.length === 0) throw new DeclarationError(`${where}: "properties" is empty.`);
    const checked = (path: string, accepts: (resolved: ResolvedPath) => boolean, what: string): ResolvedPath => {
      const resolved = resolve(path, where);
      if (!accepts(resolved))
        throw new DeclarationError(
          `${where}: "${path}" is a ${resolved.leaf.kind === 'scalar' ? resolved.leaf.type : 'relation'} field; this filter needs ${what}.`,
        );
      return resolved;
    };

    switch (entry.type) {
      case 'search':
        return createSearchFilter(
          entries.map(([path, strategy = 'exact']) => {
            if (!STRATEGIES.includes(strategy as SearchStrategy)) {
              throw new DeclarationError(
                `${where}: unknown strategy "${String(strategy)}" for "${path}".${formatDidYouMean(String(strategy), STRATEGIES)}`,
              );
            }
            const resolved = checked(
              path,
              (r) => r.leaf.kind !== 'scalar' || !['json', 'string[]', 'password', 'file'].includes(r.leaf.type),
              'a string, number, boolean, date or relation',
            );
            if (strategy !== 'exact' && !isText(resolved.leaf)) {
              throw new DeclarationError(
                `${where}: strategy "${String(strategy)}" needs a string field; "${path}" only takes "exact".`,
              );
            }
            return { resolved, strategy: strategy as SearchStrategy };
          }),
          context.referenceOf,
          substringIndexOption(entry, where),
        );
      case 'range':
        return createRangeFilter(
          entries.map(([path]) => checked(path, (r) => isNumeric(r.leaf) || isTemporal(r.leaf), 'a number or a date')),
        );
      case 'date':
        return createDateFilter(
          entries.map(([path, nulls = 'exclude_null']) => {
            if (!NULL_MODES.includes(nulls as DateNullMode))
              throw new DeclarationError(
                `${where}: unknown null mode "${String(nulls)}" for "${path}".${formatDidYouMean(String(nulls), NULL_MODES)}`,
              );
            return {
              resolved: checked(path, (r) => isTemporal(r.leaf), 'a date or datetime'),
              nulls: nulls as DateNullMode,
            };
          }),
        );
      case 'boolean':
        return createBooleanFilter(
          entries.map(([path]) =>
            checked(path, (r) => r.leaf.kind === 'scalar' && r.leaf.type === 'boolean', 'a boolean'),
          ),
        );
      case 'numeric':
        return createNumericFilter(entries.map(([path]) => checked(path, (r) => isNumeric(r.leaf), 'a number')));
      case 'exists':
        return createExistsFilter(
          entries.map(([path]) => resolve(path, where)),
          context.existsParameterName,
        );
      case 'order':
        return createOrderFilter(
          entries.map(([path, options]) => {
            const resolved = resolve(path, where);
            if (resolved.hops.some((hop) => hop.kind === 'toMany'))
              throw new DeclarationError(
                `${where}: "${path}" goes through a to-many relation; order paths follow to-one relations only.`,
              );
            return {
              resolved,
              options: orderOptions(options as OrderPropertyOptions | undefined, `${where}, "${path}"`),
            };
          }),
          context.orderParameterName,
        );
    }
  });

  const defaultOrder = Object.entries(declaration.order ?? {}).map(([path, direction]) => {
    const resolved = resolve(path, `Resource "${resource}", order`);
    if (resolved.hops.some((hop) => hop.kind === 'toMany'))
      throw new DeclarationError(`Resource "${resource}", order: "${path}" goes through a to-many relation.`);
    if (direction !== 'asc' && direction !== 'desc')
      throw new DeclarationError(`Resource "${resource}", order: "${path}" must be "asc" or "desc".`);
    return { path, direction };
  });
  return { filters, defaultOrder };
}

function orderOptions(options: OrderPropertyOptions | undefined, where: string): Required<OrderPropertyOptions> {
  const direction = options?.direction ?? 'asc';
  const nulls = options?.nulls ?? 'largest';
  if (direction !== 'asc' && direction !== 'desc')
    throw new DeclarationError(`${where}: direction must be "asc" or "desc".`);
  if (!['first', 'last', 'smallest', 'largest'].includes(nulls))
    throw new DeclarationError(
      `${where}: nulls must be "first", "last", "smallest" or "largest".${formatDidYouMean(nulls, ['first', 'last', 'smallest', 'largest'])}`,
    );
  return { direction, nulls };
}
