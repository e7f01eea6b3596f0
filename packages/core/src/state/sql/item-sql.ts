/**
 * The statements that read items by id, written as the page's are (`page-sql.ts`): an item, items of a list of ids,
 * the ids of those that exist, the links of to-many relations, and whether a subresource's parent exists and holds the
 * next one. Each depends on its shape alone (table, columns, the length of its list of ids), so its text is the key of
 * its prepared statement; a soft-deleted item is never read, unless said. A LIMIT is written into the text, never
 * bound: SQLite prepares again, at every run, a statement whose LIMIT is a parameter. And the uniqueness check of a
 * `Unique` constraint.
 */
import type { ItemId, ResourceMetadata } from '../../metadata/types.js';
import type { Statement } from './page-sql.js';
import { type LinksTable, writeLinkedFrom } from './linked-items-sql.js';
import { SqlWriter } from './sql-writer.js';

/** ` and "<deleted column>" is null`, when the resource soft-deletes: live items only. */
function writeLive(w: SqlWriter, resource: ResourceMetadata, alias?: string): void {
  const softDelete = resource.softDelete;
  if (softDelete)
    w.sql(' and ')
      .id(alias ? `${alias}.${softDelete.column}` : softDelete.column)
      .sql(' is null');
}

function writeColumns(w: SqlWriter, columns: readonly string[]): void {
  columns.forEach((column, index) => {
    (index > 0 ? w.sql(', ') : w).id(column);
  });
}

function writeList(w: SqlWriter, values: readonly unknown[]): void {
  w.sql('(');
  values.forEach((value, index) => {
    (index > 0 ? w.sql(', ') : w).value(value);
  });
  w.sql(')');
}

/**
 * The item statement's text, per list of columns (a row mapper's, the same list for every read of its table) and
 * table: every item GET reads one, and its text never changes.
 */
const itemTexts = new WeakMap<readonly string[], Map<string, string>>();

/** One item's row by id; `deletedToo`: soft-deleted or not (the read of a `restore`). */
export function buildItemStatement(
  resource: ResourceMetadata,
  table: string,
  columns: readonly string[],
  id: ItemId,
  deletedToo = false,
): Statement {
  let texts = itemTexts.get(columns);
  if (!texts) itemTexts.set(columns, (texts = new Map()));
  const key = `${deletedToo ? 'all' : 'live'} ${table}`;
  let sql = texts.get(key);
  if (sql === undefined) {
    const w = new SqlWriter().sql('select ');
    writeColumns(w, columns);
    w.sql(' from ').id(table).sql(' where ').id('id').sql(' = ?');
    if (!deletedToo) writeLive(w, resource);
    texts.set(key, (sql = w.sql(' limit 1').toString()));
  }
  return { sql, bindings: [id] };
}

/** The rows of the live items among `ids` (not empty), in id order. */
export function buildItemsStatement(
  resource: ResourceMetadata,
  table: string,
  columns: readonly string[],
  ids: readonly ItemId[],
): Statement {
  const w = new SqlWriter().sql('select ');
  writeColumns(w, columns);
  w.sql(' from ').id(table).sql(' where ').id('id').sql(' in ');
  writeList(w, ids);
  writeLive(w, resource);
  return { sql: w.sql(' order by ').id('id').sql(' asc').toString(), bindings: w.bindings };
}

/** The ids of the live items among `ids` (not empty). */
export function buildExistingStatement(resource: ResourceMetadata, ids: readonly ItemId[]): Statement {
  const w = new SqlWriter()
    .sql('select ')
    .id('id')
    .sql(' from ')
    .id(resource.table)
    .sql(' where ')
    .id('id')
    .sql(' in ');
  writeList(w, ids);
  writeLive(w, resource);
  return { sql: w.toString(), bindings: w.bindings };
}

/**
 * The links of a to-many relation from the items `ownerIds` (not empty): rows `{ id, owner }`, in the linked ids'
 * order. A soft-deleted target is linked no more: on its own table, or through the join table.
 */
export function buildLinksStatement(
  links: LinksTable,
  target: ResourceMetadata,
  ownerIds: readonly ItemId[],
): Statement {
  const w = new SqlWriter()
    .sql('select ')
    .id(links.targetColumn)
    .sql(' as ')
    .id('id')
    .sql(', ')
    .id(links.ownerColumn)
    .sql(' as ')
    .id('owner')
    .sql(' from ')
    .id(links.table)
    .sql(' where ')
    .id(links.ownerColumn)
    .sql(' in ');
  writeList(w, ownerIds);
  if (links.table === target.table) writeLive(w, target);
  else if (target.softDelete)
    w.sql(' and ')
      .id(links.targetColumn)
      .sql(' in (select ')
      .id('id')
      .sql(' from ')
      .id(target.table)
      .sql(' where ')
      .id(target.softDelete.column)
      .sql(' is null)');
  return { sql: w.sql(' order by ').id(links.targetColumn).sql(' asc').toString(), bindings: w.bindings };
}

/**
 * A row when the live item `id` of `resource` exists and, given `linkedFrom`, is one of the items its to-many
 * relation (`links`) links to from the item `ownerId`.
 */
export function buildParentStatement(
  resource: ResourceMetadata,
  id: ItemId,
  linkedFrom?: { readonly links: LinksTable; readonly ownerId: ItemId; readonly joinTable: boolean },
): Statement {
  const w = new SqlWriter()
    .sql('select ')
    .id('p.id')
    .sql(' from ')
    .id(resource.table)
    .sql(' as ')
    .id('p')
    .sql(' where ')
    .id('p.id')
    .sql(' = ')
    .value(id);
  writeLive(w, resource, 'p');
  if (linkedFrom) writeLinkedFrom(w.sql(' and '), 'p', linkedFrom.links, linkedFrom.joinTable, linkedFrom.ownerId);
  return { sql: w.sql(' limit 1').toString(), bindings: w.bindings };
}

/** One value a uniqueness check compares: a column, the value as stored, and whether letter case is ignored. */
export interface UniqueValue {
  readonly column: string;
  readonly value: unknown;
  readonly ignoreCase: boolean;
}

/**
 * A row when a live item other than `exceptId` holds all of `values` (a `Unique` constraint's check). A
 * case-insensitive value compares `lower()` of both sides, as its index does (`desired-schema.ts`); a null value is
 * `is null`.
 */
export function buildUniquenessStatement(
  resource: ResourceMetadata,
  table: string,
  values: readonly UniqueValue[],
  exceptId?: ItemId,
): Statement {
  const w = new SqlWriter().sql('select ').id('id').sql(' from ').id(table);
  let clauses = 0;
  const and = () => w.sql(clauses++ === 0 ? ' where ' : ' and ');
  if (resource.softDelete) and().id(resource.softDelete.column).sql(' is null');
  for (const { column, value, ignoreCase } of values) {
    and();
    if (value === null || value === undefined) w.id(column).sql(' is null');
    else if (ignoreCase && typeof value === 'string')
      w.sql('lower(').id(column).sql(') = lower(').value(value).sql(')');
    else w.id(column).sql(' = ').value(value);
  }
  if (exceptId !== undefined) and().sql('not ').id('id').sql(' = ').value(exceptId);
  return { sql: w.sql(' limit 1').toString(), bindings: w.bindings };
}
