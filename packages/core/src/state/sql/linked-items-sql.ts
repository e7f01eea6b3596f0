/**
 * The condition that keeps the items a to-many relation links to from one item: a subresource page's rows, and each
 * parent of a subresource read checked in turn (`page-sql.ts`, `item-sql.ts`).
 */
import type { SqlWriter } from './sql-writer.js';

/** A to-many relation's links: the table holding them and its two columns (`resolveToManyLinks`). */
export interface LinksTable {
  readonly table: string;
  readonly ownerColumn: string;
  readonly targetColumn: string;
}

/**
 * Writes that the item aliased `alias` is linked from the item `ownerId`: the owner's column on the item's own table
 * (a one-to-many without a join table), or the ids its links list.
 */
export function writeLinkedFrom(
  w: SqlWriter,
  alias: string,
  links: LinksTable,
  joinTable: boolean,
  ownerId: unknown,
): void {
  if (links.targetColumn === 'id' && !joinTable) {
    w.id(`${alias}.${links.ownerColumn}`).sql(' = ').value(ownerId);
    return;
  }
  w.id(`${alias}.id`)
    .sql(' in (select ')
    .id(links.targetColumn)
    .sql(' from ')
    .id(links.table)
    .sql(' where ')
    .id(links.ownerColumn)
    .sql(' = ')
    .value(ownerId)
    .sql(')');
}
