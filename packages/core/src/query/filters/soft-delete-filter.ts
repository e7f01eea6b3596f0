/**
 * The filter of a soft-deleted resource (`softDelete`), applied to every collection read: the live items only, or,
 * with `?deleted=true` when the resource declares who may list them, the deleted ones only. Whether the caller may
 * ask is the authorize stage's question (`SoftDeleteMetadata.list`); this filter only reads the parameter.
 */
import { exists } from '../../metadata/conditions.js';
import type { Filter, FilterParameter } from '../../metadata/types.js';
import { defineFilter, singleValue } from '../filter.js';
import { toBoolean } from './values.js';

/** The query parameter that asks for the deleted items. */
export const DELETED_PARAMETER = 'deleted';

/**
 * `field`: the date-time field DELETE sets. `listable`: the resource has a `list` rule, so `deleted` is a parameter;
 * without one it is not read at all (an unknown parameter, ignored as any other).
 */
export function createSoftDeleteFilter(field: string, listable: boolean): Filter {
  return defineFilter<boolean>({
    describe: (): FilterParameter[] =>
      listable
        ? [
            {
              variable: DELETED_PARAMETER,
              property: null,
              required: false,
              schema: { type: 'boolean' },
              isCollection: false,
              description:
                'The deleted items (true) instead of the live ones (false, the default); for callers the resource lets list them.',
            },
          ]
        : [],
    // Never undefined: the live-items condition applies to every read that does not ask for the deleted ones.
    parse(query) {
      const raw = listable ? singleValue(query, DELETED_PARAMETER) : undefined;
      return raw === undefined ? false : toBoolean(DELETED_PARAMETER, raw);
    },
    conditions: (deleted) => [exists(field, deleted)],
  });
}

/** Whether a collection read's filters ask for the deleted items of its soft-deleted resource. */
export function readsDeletedItems(filter: Filter, applied: readonly { filter: Filter; parsed: unknown }[]): boolean {
  return applied.some((entry) => entry.filter === filter && entry.parsed === true);
}
