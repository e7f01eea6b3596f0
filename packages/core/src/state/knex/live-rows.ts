/**
 * The items of a soft-deleted resource (`softDelete`) that reads and writes of the built-in state see: those whose
 * deletion field is null. Every knex-built statement on such a table says so through `limitToLiveItems` (items, lists
 * of ids, relations, parents of subresources, Unique checks, updates); pages say it through their filter's condition
 * (`query/filters/soft-delete-filter.ts`) and their joins (`sql/page-sql.ts`).
 */
import type { Knex } from 'knex';
import type { ResourceMetadata } from '../../metadata/types.js';

/**
 * Narrows `builder` (its table aliased `alias`, if given) to the live items of `resource`; unchanged when it deletes
 * rows.
 */
export function limitToLiveItems<B extends Knex.QueryBuilder>(
  builder: B,
  resource: ResourceMetadata,
  alias?: string,
): B {
  const softDelete = resource.softDelete;
  if (softDelete) builder.whereNull(alias ? `${alias}.${softDelete.column}` : softDelete.column);
  return builder;
}
