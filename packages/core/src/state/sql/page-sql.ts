/**
 * A collection page as SQL, written here from the page's description (conditions, order terms, page, cursor, the
 * subresource's parent, the to-one relations joined for embedding): the rows statement, with the count in it as a
 * sub-query when asked, and the count statement alone. The text depends only on the shape of the description (every
 * value is bound), so it is itself the key its prepared statement is kept by.
 */
import { RESERVED_COLUMN_PREFIX } from '../../metadata/reserved-names.js';
import type { ItemId, MetadataRegistry, ResourceMetadata } from '../../metadata/types.js';
import type { Condition, NullsPlacement, Order, OrderDirection } from '../../metadata/conditions.js';
import type { CursorRequest } from '../../metadata/types.js';
import type { Dialect } from '../dialects/dialect.js';
import type { EmbedJoin } from '../knex/embed-joins.js';
import type { ToManyLinks } from '../knex/row-mapper.js';
import { type ConditionScope, resolveCachedPath, type SubstringIndexUse, writeConditions } from './conditions-sql.js';
import { writeLinkedFrom } from './linked-items-sql.js';
import { SqlWriter } from './sql-writer.js';

/**
 * The column of a page's rows holding the count, when the page reads it in the same statement (never a column's name).
 */
export const TOTAL = `${RESERVED_COLUMN_PREFIX}total`;

/** What a page reads. */
export interface PageSpec {
  readonly resource: ResourceMetadata;
  /** The stored columns of the resource (`RowMapper.columns`). */
  readonly columns: readonly string[];
  readonly conditions: readonly Condition[];
  /** The order terms the filters asked for; the resource's default order and the id follow. */
  readonly orders: readonly Order[];
  /** A subresource's read: the items the parent's to-many relation holds. */
  readonly parent?: { readonly links: ToManyLinks; readonly id: ItemId };
  /** Cursor pagination: bounds on the id, which alone orders the page. */
  readonly cursor: CursorRequest | null;
  /** The rows to read (no LIMIT when undefined), from `offset`. */
  readonly limit: number | undefined;
  readonly offset: number;
  readonly joins: readonly EmbedJoin[];
}

/** A statement to run. */
export interface Statement {
  readonly sql: string;
  readonly bindings: readonly unknown[];
}

export interface PageSqlOptions {
  readonly registry: MetadataRegistry;
  readonly dialect: Dialect;
  readonly substringIndexes: ReadonlyMap<string, ReadonlySet<string>>;
}

/** How the rows statement reads the count: the page's conditions again, or a trigram index's matches alone. */
export type CountIn = { readonly kind: 'conditions' } | { readonly kind: 'index'; readonly use: SubstringIndexUse };

const ROOT = 't0';

/** An order term as written: its column, direction and NULLS clause, or where nulls go when there is no such clause. */
interface OrderTerm {
  readonly column: string;
  readonly direction: OrderDirection;
  readonly placement: string;
  readonly nullsFirst: boolean | undefined;
}

const nullsFor = (direction: OrderDirection, nulls: NullsPlacement): 'first' | 'last' => {
  if (nulls === 'first' || nulls === 'last') return nulls;
  return (nulls === 'smallest') === (direction === 'asc') ? 'first' : 'last';
};

function scopeOf(options: PageSqlOptions, plan: 'index' | 'scan', root = ROOT): ConditionScope {
  return {
    registry: options.registry,
    dialect: options.dialect,
    substringIndexes: options.substringIndexes,
    substringPlan: plan,
    uses: [],
    aliases: 0,
    root,
  };
}

/** `where …` of the page: the parent's link, the conditions, the cursor's bounds (nothing when there are none). */
function writeWhere(w: SqlWriter, spec: PageSpec, scope: ConditionScope, withCursor: boolean): void {
  const parts: ((w: SqlWriter) => void)[] = [];
  const { parent, cursor } = spec;
  if (parent) {
    const { links, id } = parent;
    parts.push((w) => writeLinkedFrom(w, scope.root, links, links.field.joinTable !== undefined, id));
  }
  if (spec.conditions.length > 0)
    parts.push((w) => writeConditions(w, scope, { resource: spec.resource, alias: scope.root }, spec.conditions));
  if (withCursor && cursor?.greaterThan !== undefined)
    parts.push((w) => w.id(`${scope.root}.id`).sql(' > ').value(cursor.greaterThan));
  if (withCursor && cursor?.lessThan !== undefined)
    parts.push((w) => w.id(`${scope.root}.id`).sql(' < ').value(cursor.lessThan));
  if (parts.length === 0) return;
  w.sql(' where ');
  parts.forEach((part, index) => {
    if (index > 0) w.sql(' and ');
    part(w);
  });
}

/** The count of the page's items (its conditions, not its order or page), as a statement or a sub-query. */
function writeCount(
  w: SqlWriter,
  spec: PageSpec,
  options: PageSqlOptions,
  uses: SubstringIndexUse[],
  as: string,
): void {
  const scope = scopeOf(options, 'index');
  w.sql('select count(*) as ').id(as).sql(' from ').id(spec.resource.table).sql(' as ').id(ROOT);
  writeWhere(w, spec, scope, false);
  uses.push(...scope.uses);
}

export function buildCountStatement(
  spec: PageSpec,
  options: PageSqlOptions,
): Statement & { readonly uses: readonly SubstringIndexUse[] } {
  const w = new SqlWriter();
  const uses: SubstringIndexUse[] = [];
  writeCount(w, spec, options, uses, 'n');
  return { sql: w.toString(), bindings: w.bindings, uses };
}

/** The count of a lone search from its trigram index alone. */
function writeIndexCount(w: SqlWriter, options: PageSqlOptions, use: SubstringIndexUse): void {
  const matches = options.dialect.substringMatches!(use.index, use.condition.value);
  w.sql('select count(*) as ').id('n').sql(' from ').id(use.index).sql(' where ').raw(matches.sql, matches.bindings);
}

/** A to-one relation an order term goes through: `left join <table> as <alias> on <on> = <alias>.id`. */
interface OrderJoin {
  readonly table: string;
  readonly alias: string;
  readonly on: string;
  /** A soft-deleted target's deletion column: its deleted items are not joined, as for embeds and filters. */
  readonly deletedColumn: string | undefined;
}

/** The order terms of a page read without a cursor, joining the to-one relations they go through. */
function orderTerms(spec: PageSpec, options: PageSqlOptions): { joins: OrderJoin[]; terms: OrderTerm[] } {
  const joins = new Map<string, OrderJoin>();
  const terms: OrderTerm[] = [];
  for (const order of [
    ...spec.orders,
    ...spec.resource.defaultOrder.map((term) => ({ ...term, nulls: 'largest' as const })),
  ]) {
    const path = resolveCachedPath(options.registry, spec.resource, order.path);
    let from = ROOT;
    let prefix = '';
    for (const hop of path.hops) {
      if (hop.kind !== 'toOne')
        throw new Error(`Cannot order by "${order.path}": it goes through the to-many relation "${hop.name}".`);
      prefix = prefix ? `${prefix}.${hop.name}` : hop.name;
      let joined = joins.get(prefix);
      if (!joined) {
        const target = options.registry.resource(hop.target);
        joined = {
          table: target.table,
          alias: `${ROOT}_j${joins.size + 1}`,
          on: `${from}.${hop.column}`,
          deletedColumn: target.softDelete?.column,
        };
        joins.set(prefix, joined);
      }
      from = joined.alias;
    }
    // NULLS FIRST / LAST in SQL (SQLite ≥ 3.30 and PostgreSQL). A column that is never null (nor reached through a
    // relation that may be missing) goes without: SQLite then walks its index without the extra step the clause costs.
    const neverNull = !path.leaf.nullable && path.hops.every((hop) => hop.kind === 'toOne' && !hop.nullable);
    const nulls = neverNull ? undefined : nullsFor(order.direction, order.nulls);
    const placement = nulls && options.dialect.nullsClause ? ` nulls ${nulls}` : '';
    // MariaDB has no NULLS FIRST / LAST (it puts nulls first going up): `column is null` orders them first.
    const nullsFirst = nulls && !options.dialect.nullsClause ? nulls === 'first' : undefined;
    terms.push({ column: `${from}.${path.leaf.column}`, direction: order.direction, placement, nullsFirst });
  }
  return { joins: [...joins.values()], terms };
}

/**
 * The rows statement: the page's rows (with the count in each row, as `TOTAL`, when `count` says how), the joined
 * relations' columns, in order (the id last, in the direction of the last term, so pages are stable and an index on
 * that term's column, which holds the id in the same order, gives the whole order), limited.
 */
export function buildRowsStatement(
  spec: PageSpec,
  options: PageSqlOptions,
  plan: 'index' | 'scan' = 'index',
  count?: CountIn,
): Statement & { readonly uses: readonly SubstringIndexUse[] } {
  const w = new SqlWriter();
  const uses: SubstringIndexUse[] = [];
  w.sql('select ');
  spec.columns.forEach((column, index) => {
    (index > 0 ? w.sql(', ') : w).id(`${ROOT}.${column}`);
  });
  if (count) {
    w.sql(', (');
    if (count.kind === 'index') writeIndexCount(w, options, count.use);
    else writeCount(w, spec, options, [], 'n');
    w.sql(') as ').id(TOTAL);
  }
  for (const join of spec.joins)
    for (const [selected, column] of join.columns) w.sql(', ').id(`${join.alias}.${column}`).sql(' as ').id(selected);
  w.sql(' from ').id(spec.resource.table).sql(' as ').id(ROOT);
  for (const join of spec.joins) {
    w.sql(' left join ')
      .id(join.target.table)
      .sql(' as ')
      .id(join.alias)
      .sql(' on ')
      .id(`${ROOT}.${join.field.column}`)
      .sql(' = ')
      .id(`${join.alias}.id`);
    // A soft-deleted item is not embedded: the relation reads as empty, as when the item is gone.
    if (join.target.softDelete) w.sql(' and ').id(`${join.alias}.${join.target.softDelete.column}`).sql(' is null');
  }
  const { cursor } = spec;
  const order = cursor ? { joins: [], terms: [] } : orderTerms(spec, options);
  for (const { table, alias, on, deletedColumn } of order.joins) {
    w.sql(' left join ').id(table).sql(' as ').id(alias).sql(' on ').id(on).sql(' = ').id(`${alias}.id`);
    if (deletedColumn) w.sql(' and ').id(`${alias}.${deletedColumn}`).sql(' is null');
  }
  const scope = scopeOf(options, plan);
  writeWhere(w, spec, scope, true);
  uses.push(...scope.uses);
  w.sql(' order by ');
  if (cursor) {
    w.id(`${ROOT}.id`).sql(isBackward(cursor) === (cursor.direction === 'asc') ? ' desc' : ' asc');
  } else {
    for (const term of order.terms) {
      if (term.nullsFirst !== undefined) w.id(term.column).sql(` is null ${term.nullsFirst ? 'desc' : 'asc'}, `);
      w.id(term.column).sql(` ${term.direction}${term.placement}, `);
    }
    w.id(`${ROOT}.id`).sql(` ${order.terms[order.terms.length - 1]?.direction ?? 'asc'}`);
  }
  if (spec.limit !== undefined) {
    // A LIMIT written into the SQL, not bound: SQLite re-prepares a statement whose LIMIT is a bound parameter on every
    // run (the value may change the plan). Page sizes are few, so the statements stay few.
    if (!Number.isSafeInteger(spec.limit) || spec.limit < 0)
      throw new Error(`A LIMIT must be a count, not ${String(spec.limit)}.`);
    w.sql(` limit ${spec.limit}`);
    if (spec.offset > 0) w.sql(' offset ').value(spec.offset);
  }
  return { sql: w.toString(), bindings: w.bindings, uses };
}

/** A cursor page read towards the previous page: it is read the other way round, then reversed. */
export function isBackward(cursor: CursorRequest | null | undefined): boolean {
  if (!cursor) return false;
  const forward = cursor.direction === 'desc' ? cursor.lessThan : cursor.greaterThan;
  const reverse = cursor.direction === 'desc' ? cursor.greaterThan : cursor.lessThan;
  return reverse !== undefined && forward === undefined;
}
