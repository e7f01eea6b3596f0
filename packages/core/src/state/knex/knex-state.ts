/**
 * The built-in state provider and processor, on knex. A collection read is one statement for the page with its count
 * (a sub-query) and the to-one items it embeds (joined, `embed-joins.ts`), and one per to-many relation for the whole
 * page (never one per item); a subresource read first checks its parents. Writes run in one transaction: nested
 * writes first, then the item, then its many-to-many links; the stored item is read back.
 */
import type { Knex } from 'knex';
import { ApiError } from '../../errors.js';
import { RESERVED_COLUMN_PREFIX } from '../../metadata/reserved-names.js';
import type { MetadataRegistry, ResourceMetadata, ToManyFieldMetadata } from '../../metadata/types.js';
import { type CollectionPage, type CursorRequest, type Entity, NestedWrite, type PageRequest, type ParentLink, type ProcessContext, type StateContext, type StateProcessor, type StateProvider } from '../contracts.js';
import type { Database } from '../database.js';
import type { UniquenessCheck } from '../../validation/validate.js';
import { assertUnchanged } from './assert-unchanged.js';
import { buildDesiredSchema } from '../migrations/desired-schema.js';
import { createEmbedJoins } from './embed-joins.js';
import { createFilterQuery, type SubstringIndexUse } from './filter-query.js';
import { recordingBuilder, shapeOf } from './query-shape.js';
import { buildRowMapper, type RowMapper, toManyLinks } from './row-mapper.js';
import type { Transact } from './group-transactions.js';
import { createStatementRunner } from './statements.js';
import { createSubstringSearch } from './substring-search.js';
import { writeError } from './write-errors.js';
import { credentialsChange } from '../credentials-stamp.js';

/** The column of a page's rows holding the count, when the page reads it in the same statement (never a column's name). */
const TOTAL = `${RESERVED_COLUMN_PREFIX}total`;

/**
 * Sets a LIMIT written into the SQL instead of bound: SQLite re-prepares a statement whose LIMIT is a bound parameter
 * on every run (the value may change the plan), which measured as a third of an item read. Page sizes are few, so the
 * statements stay few; the value is checked to be a count, since it is not a parameter.
 */
function limitTo(builder: Knex.QueryBuilder, count: number): Knex.QueryBuilder {
  if (!Number.isSafeInteger(count) || count < 0) throw new Error(`A LIMIT must be a count, not ${String(count)}.`);
  return builder.limit(count, { skipBinding: true });
}

/**
 * A page's count query, its native SQL when compiled, and the trigram index conditions it holds. The query is built by
 * knex when first asked for: a count compiled through its recorded shape (`compiledCount`) needs it only for the first
 * count of its shape, or when the direct path cannot run it.
 */
interface PageCount {
  query(): Knex.QueryBuilder;
  readonly compiled: { sql: string; bindings: readonly unknown[] } | undefined;
  readonly uses: SubstringIndexUse[];
}

/** Keeps bound parameters per statement well below SQLite's limit when a page is large. */
const CHUNK = 500;

const chunks = <T>(values: readonly T[]): T[][] => {
  const result: T[][] = [];
  for (let start = 0; start < values.length; start += CHUNK) result.push(values.slice(start, start + CHUNK));
  return result;
};

export interface KnexState {
  readonly provider: StateProvider;
  readonly processor: StateProcessor;
  /** Reads one item by id, with its to-many relations; null when absent. */
  readItem(resource: ResourceMetadata, id: number, db?: Knex): Promise<Entity | null>;
  /** Reads items by id, with the to-many relations named; in id order. */
  readMany(resource: ResourceMetadata, ids: readonly number[], toMany: readonly string[]): Promise<Entity[]>;
  /** Which of `ids` exist in the resource's table. */
  existingIds(resource: ResourceMetadata, ids: readonly number[]): Promise<Set<number>>;
  isUnique: UniquenessCheck;
  /**
   * One write statement (`StateContext.execute`): alone, it shares its commit with the other writes of the turn on
   * SQLite; in a transaction of `transaction`'s (`db`), it runs there.
   */
  execute<T = Record<string, unknown>>(query: Knex.QueryBuilder, db?: Knex): Promise<T[]>;
  /** Runs `work` in a transaction: on an SQLite file, one that shares its commit (`group-transactions.ts`). */
  readonly transaction: Transact;
}

/** What the state is told beyond the metadata. */
export interface KnexStateOptions {
  /**
   * The user resource and its roles field (security on): a new value of the roles, as of a password, revokes the
   * user's tokens (`credentials-stamp.ts`).
   */
  readonly userRoles?: { readonly resource: ResourceMetadata; readonly field: string };
}

/** The fields whose new value revokes an item's tokens: its password fields, and the roles of the user resource. */
function credentialFieldsOf(resource: ResourceMetadata, options: KnexStateOptions): string[] {
  const fields = resource.fields.filter((field) => field.kind === 'scalar' && field.type === 'password').map((field) => field.name);
  return options.userRoles?.resource === resource ? [...fields, options.userRoles.field] : fields;
}

export function createKnexState(database: Database, registry: MetadataRegistry, options: KnexStateOptions = {}): KnexState {
  const mappers = new Map<string, RowMapper>(registry.resources.map((r) => [r.name, buildRowMapper(r, registry, database.dialect)]));
  const mapperOf = (resource: ResourceMetadata) => mappers.get(resource.name)!;
  const credentialFields = new Map(registry.resources.map((r) => [r.name, credentialFieldsOf(r, options)]));

  /**
   * The row of a write, with the "tokens valid after" instant set when it starts the item's tokens afresh: on a
   * resource holding credentials, an item created, or one whose password or roles get a new value. Every write of the
   * built-in processor (REST, GraphQL, custom operations calling `next`, nested items) comes through here.
   */
  function rowOf(resource: ResourceMetadata, data: Entity, creating: boolean, previous: Entity | null | undefined): Record<string, unknown> {
    const mapper = mapperOf(resource);
    const row = mapper.toRow(data);
    if (mapper.tokensValidAfter && (creating || credentialsChange(credentialFields.get(resource.name)!, data, previous))) row[mapper.tokensValidAfter] = Date.now();
    return row;
  }
  const runner = createStatementRunner(database);
  const { rows: run, compiledRows, shaped, compiledShape, write } = runner;
  /** Transactions: on an SQLite file, ones that share their commits (`group-transactions.ts`); knex's elsewhere. */
  const transaction: Transact = runner.transaction ?? ((work) => database.knex.transaction(work));
  const substringIndexes = new Map(buildDesiredSchema(registry).tables.map((table) => [table.name, new Set(table.substringIndexes.map((index) => index.column))]));
  const anySubstringIndex = [...substringIndexes.values()].some((columns) => columns.size > 0);
  const substringSearch = createSubstringSearch(database, mapperOf, shaped);
  const embedJoins = createEmbedJoins(registry, mapperOf);

  async function loadToMany(mapper: RowMapper, items: Entity[], db: Knex, only?: readonly string[]): Promise<void> {
    const links = only ? mapper.toMany.filter((l) => only.includes(l.field.name)) : mapper.toMany;
    if (links.length === 0 || items.length === 0) return;
    const byId = new Map(items.map((item) => [item.id!, item]));
    for (const { field, table, ownerColumn, targetColumn } of links) {
      for (const item of items) item[field.name] = [];
      for (const ids of chunks([...byId.keys()])) {
        const rows = await shaped<{ id: number; owner: number }>(`links ${table}.${ownerColumn} ${ids.length}`, ids, () => db(table).select({ id: targetColumn, owner: ownerColumn }).whereIn(ownerColumn, ids).orderBy(targetColumn), db);
        for (const row of rows) (byId.get(Number(row.owner))![field.name] as number[]).push(Number(row.id));
      }
    }
  }

  async function readItem(resource: ResourceMetadata, id: number, db: Knex = database.knex): Promise<Entity | null> {
    const mapper = mapperOf(resource);
    const [row] = await shaped(`item ${mapper.table}`, [id], () => limitTo(db(mapper.table).select(mapper.columns).where('id', id), 1), db);
    if (!row) return null;
    const item = mapper.toEntity(row);
    await loadToMany(mapper, [item], db);
    return item;
  }

  async function readMany(resource: ResourceMetadata, ids: readonly number[], toMany: readonly string[]): Promise<Entity[]> {
    const mapper = mapperOf(resource);
    const items: Entity[] = [];
    for (const part of chunks([...new Set(ids)])) {
      const rows = await shaped(`many ${mapper.table} ${part.length}`, part, () => database.knex(mapper.table).select(mapper.columns).whereIn('id', part).orderBy('id'));
      items.push(...rows.map((row) => mapper.toEntity(row)));
    }
    await loadToMany(mapper, items, database.knex, toMany);
    return items;
  }

  /** `builder`'s items (aliased `alias`) that `field` of the parent item `parentId` links to. */
  function whereLinked(builder: Knex.QueryBuilder, alias: string, field: ToManyFieldMetadata, parentId: number): void {
    const links = toManyLinks(field, registry);
    if (links.targetColumn === 'id' && !field.joinTable) builder.where(`${alias}.${links.ownerColumn}`, parentId);
    else builder.whereIn(`${alias}.id`, database.knex(links.table).select(links.targetColumn).where(links.ownerColumn, parentId));
  }

  /** Every parent exists and holds the next one (the last holds the collection read). */
  async function parentsHold(parents: readonly ParentLink[]): Promise<boolean> {
    for (let index = 0; index < parents.length; index++) {
      const parent = parents[index]!;
      const query = limitTo(database.knex(`${parent.resource.table} as p`).where('p.id', parent.id).select('p.id'), 1);
      if (index > 0) whereLinked(query, 'p', parents[index - 1]!.field, parents[index - 1]!.id);
      if ((await run(query)).length === 0) return false;
    }
    return true;
  }

  /**
   * The queries of a page: its count (none for a partial page) and its rows (filtered, ordered, limited), each built
   * when asked. `rows(plan)` takes how pattern conditions read trigram indexes (see `substringPlan`).
   */
  function pageQueries(context: StateContext, start: (table: string) => Knex.QueryBuilder = (table) => database.knex(table)) {
    const mapper = mapperOf(context.resource);
    const { knex } = database;
    const { page, resource } = context;
    const alias = 't0';
    const from = () => {
      const builder = start(`${mapper.table} as ${alias}`);
      const parent = context.parents[context.parents.length - 1];
      if (parent) whereLinked(builder, alias, parent.field, parent.id);
      return builder;
    };
    const cursor = page?.cursor ?? null;
    const filtered = (builder: Knex.QueryBuilder, forCount: boolean, substringPlan: 'index' | 'scan', onSubstringIndex?: (use: SubstringIndexUse) => void, onOrderBy?: (direction: 'asc' | 'desc') => void) => {
      const query = createFilterQuery({ db: knex, builder, resource, registry, dialect: database.dialect, alias, forCount, ordering: !cursor, substringIndexes, substringPlan, onSubstringIndex, onOrderBy });
      for (const { filter, parsed } of context.filters) filter.apply(query, parsed);
      return query;
    };

    /**
     * The count query, and the trigram index conditions it holds: known once it is compiled (knex calls the filters'
     * nested conditions as it compiles) or recorded (`compiledCount`), so it is compiled here when an index may be read.
     * `compile: false` builds it only (the recorded count inside a recorded page).
     */
    const count = (compile = true): PageCount => {
      let built: { query: Knex.QueryBuilder; uses: SubstringIndexUse[] } | undefined;
      const build = () => {
        if (!built) {
          const uses: SubstringIndexUse[] = [];
          const query = from().count({ n: '*' });
          filtered(query, true, 'index', (use) => uses.push(use));
          built = { query, uses };
        }
        return built;
      };
      const query = () => build().query;
      // Without trigram indexes no condition reads one: the query waits until it is needed.
      if (compile && !anySubstringIndex) return { query, compiled: undefined, uses: [] };
      if (!compile) return { query, compiled: undefined, uses: build().uses };
      const recorded = compiledCount(context, query);
      if (recorded) return recorded;
      const { uses } = build();
      return { query, compiled: query().toSQL().toNative(), uses };
    };

    /** The count of a sole search on a trigram index (`soleSearch`), read from the index alone, as the page's count. */
    const matchCount = (use: SubstringIndexUse): PageCount => ({ query: () => substringSearch.matchCount(use, start), compiled: undefined, uses: [use] });

    /**
     * The rows query. With `withCount`, each row also holds the count (`TOTAL`), read in the same statement (see
     * `totalOf`). A cursor page read backwards (`isBackward`) is read the other way round.
     */
    const rows = (plan: 'index' | 'scan' = 'index', withCount?: PageCount) => {
      const rowsQuery = from().select(mapper.columns.map((column) => `${alias}.${column}`));
      if (withCount) rowsQuery.select({ [TOTAL]: withCount.query() });
      embedJoins.join(rowsQuery, alias, embedJoins.joinsOf(context.embed));
      // The id comes last, so pages are stable, in the direction of the last term: an index on that term's column
      // holds the id in the same order, so it gives the whole order without sorting.
      let lastDirection: 'asc' | 'desc' = 'asc';
      const query = filtered(rowsQuery, false, plan, undefined, (direction) => (lastDirection = direction));
      if (cursor) {
        if (cursor.greaterThan !== undefined) rowsQuery.where(`${alias}.id`, '>', cursor.greaterThan);
        if (cursor.lessThan !== undefined) rowsQuery.where(`${alias}.id`, '<', cursor.lessThan);
        const flip = (d: 'asc' | 'desc') => (d === 'asc' ? 'desc' : 'asc');
        rowsQuery.orderBy(`${alias}.id`, isBackward(cursor) ? flip(cursor.direction) : cursor.direction);
      } else {
        for (const { path, direction } of resource.defaultOrder) query.orderBy(path, direction);
        rowsQuery.orderBy(`${alias}.id`, lastDirection);
      }
      if (page) limitTo(rowsQuery, page.itemsPerPage + lookAheadOf(context)).offset(page.offset);
      return rowsQuery;
    };
    return { count, matchCount, rows };
  }

  type PageQueries = ReturnType<typeof pageQueries>;

  /** A cursor page read towards the previous page: it is read the other way round, then reversed. */
  const isBackward = (cursor: CursorRequest | null | undefined): boolean => {
    if (!cursor) return false;
    const forward = cursor.direction === 'desc' ? cursor.lessThan : cursor.greaterThan;
    const reverse = cursor.direction === 'desc' ? cursor.greaterThan : cursor.lessThan;
    return reverse !== undefined && forward === undefined;
  };

  /** Partial and cursor pages read one item more, to know whether a next page exists. */
  const lookAheadOf = ({ page }: StateContext): number => (page && (page.partial || page.cursor) ? 1 : 0);

  /**
   * The total of a page read with its count: in every row. A page without rows has none: at offset 0 the total is 0
   * (the count has the page's conditions), past it the count is read alone (a page past the end, rare).
   */
  async function totalOf(rows: readonly Record<string, unknown>[], page: PageRequest, countAlone: () => Promise<{ n: unknown }[]>): Promise<unknown> {
    if (rows.length > 0) return rows[0]![TOTAL];
    return page.offset === 0 ? 0 : (await countAlone())[0]?.n;
  }

  /**
   * An unfiltered page of a top-level collection has one SQL shape per resource and page kind: it is built once. The
   * kind: counted or not, from the start or at an offset (knex leaves out `OFFSET 0`), and by cursor, which bounds of
   * the id it has. Its count is a sub-query of the page's statement: one statement instead of two (each costs about
   * 25 µs under load on SQLite, one round trip on PostgreSQL), and the count and the rows come from the same snapshot.
   */
  async function readPlainPage(context: StateContext): Promise<{ rows: Record<string, unknown>[]; total: unknown }> {
    const { page } = context;
    const queries = pageQueries(context);
    const shape = `page ${context.resource.name}${embedJoins.joinsOf(context.embed).map((join) => ` +${join.field.name}`).join('')}`;
    const countAlone = () => shaped<{ n: unknown }>(`${shape} count`, [], () => queries.count().query());
    if (!page) return { rows: await shaped(`${shape} all`, [], () => queries.rows()), total: undefined };
    if (page.itemsPerPage === 0) return { rows: [], total: page.partial ? undefined : (await countAlone())[0]?.n };
    const { cursor, offset } = page;
    const bindings = [cursor?.greaterThan, cursor?.lessThan, offset || undefined].filter((value) => value !== undefined);
    const kind = `${page.partial ? 'partial' : 'counted'} limit ${page.itemsPerPage + lookAheadOf(context)} ${offset ? 'offset' : 'start'} ${cursor ? `cursor ${cursor.direction} ${cursor.greaterThan !== undefined} ${cursor.lessThan !== undefined}` : ''}`;
    if (page.partial) return { rows: await shaped(`${shape} ${kind}`, bindings, () => queries.rows()), total: undefined };
    const rows = await shaped(`${shape} ${kind}`, bindings, () => queries.rows('index', queries.count()));
    return { rows, total: await totalOf(rows, page, countAlone) };
  }

  /**
   * What `make` builds on a recording of the page's queries (`query-shape.ts`); undefined when a call cannot be
   * recorded (a custom filter's), or throws an error that knex will raise again when it builds the query.
   */
  function recorded<T>(context: StateContext, make: (queries: PageQueries) => T): T | undefined {
    try {
      return make(pageQueries(context, recordingBuilder));
    } catch {
      return undefined;
    }
  }

  /**
   * A count compiled through its recorded shape: the SQL knex compiled for the shape's first count, with this one's
   * values, and the trigram index conditions the recording met (the same code reports them). Undefined when the count
   * cannot be recorded: knex compiles it, and reports the conditions as it does.
   */
  function compiledCount(context: StateContext, query: () => Knex.QueryBuilder): PageCount | undefined {
    const counting = recorded(context, (queries) => {
      const { query: recording, uses } = queries.count(false);
      return { shape: shapeOf(recording()), uses };
    });
    if (!counting) return undefined;
    const { key, bindings } = counting.shape;
    return { query, compiled: compiledShape(`filtered count\u0001${key}`, bindings, query), uses: counting.uses };
  }

  /**
   * The rows of a filtered page (with the count in the same statement when `countOf` is given: it picks the count of
   * the queries it is handed, the page's or their recording): through the SQL of their recorded shape, built by knex
   * only the first time; built by knex every time when the query cannot be recorded.
   */
  function readRows(context: StateContext, queries: PageQueries, plan: 'index' | 'scan', countOf?: (queries: PageQueries) => PageCount): Promise<Record<string, unknown>[]> {
    const build = () => queries.rows(plan, countOf?.(queries));
    const shape = recorded(context, (recording) => shapeOf(recording.rows(plan, countOf?.(recording))));
    return shape ? shaped(`filtered page\u0001${shape.key}`, shape.bindings, build) : run(build());
  }

  async function readFilteredPage(context: StateContext): Promise<{ rows: Record<string, unknown>[]; total: unknown }> {
    const { page } = context;
    const queries = pageQueries(context);
    const count = page && !page.partial ? queries.count() : undefined;
    if (!count) return { rows: page?.itemsPerPage === 0 ? [] : await readRows(context, queries, 'index'), total: undefined };
    const countAlone = () => (count.compiled ? compiledRows<{ n: unknown }>(count.query, count.compiled) : run<{ n: unknown }>(count.query()));
    if (page!.itemsPerPage === 0) return { rows: [], total: (await countAlone())[0]?.n };
    if (count.uses.length === 0) {
      // As for a plain page: the count in the page's statement.
      const rows = await readRows(context, queries, 'index', (q) => q.count(false));
      return { rows, total: await totalOf(rows, page!, countAlone) };
    }
    // A search on a trigram index (SQLite): the number of matches decides how the page is read. The same search's last
    // count chooses, and the count comes in the page's statement; the first read of a search counts first.
    const sole = substringSearch.soleSearch(context.resource, count.compiled!.sql, count.uses);
    const search = substringSearch.search(count.compiled!);
    const { last } = search;
    if (last && last.total > page!.offset) {
      const rows = await readRows(context, queries, substringSearch.plan(page!, last), (q) => (sole ? q.matchCount(sole) : q.count(false)));
      const total = await totalOf(rows, page!, countAlone);
      search.keep({ total: Number(total), size: last.size, reads: last.reads + 1 });
      return { rows, total };
    }
    // The index's count reads the table's size in the same statement; a count through the table does not.
    const [counted]: readonly ({ n: unknown; size?: unknown } | undefined)[] = await (sole ? substringSearch.countFromIndex(context.resource, sole) : countAlone());
    const total = Number(counted?.n ?? 0);
    if (total <= page!.offset) return { rows: [], total };
    const found = { total, size: sole ? Number(counted?.size ?? 0) : await substringSearch.size(context.resource), reads: 0 };
    search.keep(found);
    return { rows: await readRows(context, queries, substringSearch.plan(page!, found)), total };
  }

  async function readPage(context: StateContext): Promise<CollectionPage | null> {
    if (context.parents.length > 0 && !(await parentsHold(context.parents))) return null;
    const mapper = mapperOf(context.resource);
    const { page } = context;
    const lookAhead = lookAheadOf(context);
    const plain = context.filters.length === 0 && context.parents.length === 0;
    const { rows, total } = await (plain ? readPlainPage(context) : readFilteredPage(context));
    let items = rows.map((row) => mapper.toEntity(row));
    const hasMore = lookAhead > 0 && items.length > page!.itemsPerPage;
    if (hasMore) items = items.slice(0, page!.itemsPerPage);
    if (isBackward(page?.cursor)) items.reverse();
    await loadToMany(mapper, items, database.knex);
    const totalItems = total !== undefined ? Number(total) : page ? undefined : items.length;
    const related = embedJoins.relatedOf(rows, embedJoins.joinsOf(context.embed));
    return { items, totalItems, ...(lookAhead > 0 ? { hasMore } : {}), ...(related ? { related } : {}) };
  }

  const provider: StateProvider = {
    provide: (context) => (context.operation.collection ? readPage(context) : readItem(context.resource, context.id!)),
  };

  /** Writes one item (and, first, the items nested in it); returns its id. */
  async function persist(trx: Knex.Transaction, resource: ResourceMetadata, data: Entity, id: number | undefined, previous: Entity | null, compared: Entity | null | undefined = previous): Promise<number> {
    const mapper = mapperOf(resource);
    const values: Entity = { ...data };
    for (const field of resource.fields) {
      const value = values[field.name];
      if (value instanceof NestedWrite) {
        values[field.name] = await persist(trx, registry.resource(value.resource), value.data, value.id, null, value.previous);
      }
    }
    if (id === undefined) {
      const [inserted] = await trx(mapper.table).insert(rowOf(resource, values, true, null)).returning('id');
      id = Number(typeof inserted === 'object' ? (inserted as { id: number }).id : inserted);
    } else {
      const row = rowOf(resource, values, false, compared);
      // No row updated: the item was deleted since it was read (by a request running beside this one).
      if (Object.keys(row).length > 0 && (await trx(mapper.table).where('id', id).update(row)) === 0) {
        throw previous ? new ApiError('ITEM_NOT_FOUND', 'Not Found') : new ApiError('CONFLICT', 'A related item does not exist (any more).');
      }
    }
    for (const links of mapper.toMany) {
      const { field } = links;
      const ids = values[field.name];
      // Only the owning side of a many-to-many is written, and only when the value changed (a kept value is the array read).
      if (!field.joinTable || field.mappedBy !== undefined || !Array.isArray(ids) || ids === previous?.[field.name]) continue;
      await trx(links.table).where(links.ownerColumn, id).delete();
      for (const part of chunks(ids as number[])) {
        if (part.length > 0) await trx(links.table).insert(part.map((target) => ({ [links.ownerColumn]: id, [links.targetColumn]: target })));
      }
    }
    return id;
  }

  /**
   * A write that is one SQL statement, atomic without a transaction: no nested item to write first, no many-to-many
   * links to rewrite, and no If-Match to hold under a lock.
   */
  function isSingleStatement(data: Entity, context: ProcessContext): boolean {
    if (context.expected) return false;
    for (const field of context.resource.fields) {
      const value = data[field.name];
      if (value instanceof NestedWrite) return false;
      if (field.kind === 'toMany' && field.joinTable && field.mappedBy === undefined && Array.isArray(value) && value !== context.previous?.[field.name]) return false;
    }
    return true;
  }

  /** The item a write stored; a 404 when it is gone (deleted by a request that ran while this one was on its way). */
  function existing(item: Entity | null): Entity {
    if (!item) throw new ApiError('ITEM_NOT_FOUND', 'Not Found');
    return item;
  }

  /**
   * The single-statement write: INSERT / UPDATE … RETURNING the columns gives the stored item without reading it again.
   * On SQLite it shares its commit with the other such writes of the same turn (`group-commit.ts`).
   */
  async function writeOne(data: Entity, context: ProcessContext, trx?: Knex.Transaction): Promise<Entity | undefined> {
    const { resource, operation } = context;
    const mapper = mapperOf(resource);
    const db = trx ?? database.knex;
    // Inside a transaction the statement runs there; alone, with the shared commits of the turn.
    const run = <T>(query: Knex.QueryBuilder) => write<T>(query, trx);
    const table = db(mapper.table);
    if (operation.kind === 'delete') {
      await run(table.where('id', context.id!).delete().returning('id'));
      return undefined;
    }
    const row = rowOf(resource, data, context.id === undefined, context.previous);
    let stored: Record<string, unknown> | undefined;
    if (context.id === undefined) [stored] = await run(table.insert(row).returning(mapper.columns as string[]));
    else if (Object.keys(row).length > 0) [stored] = await run(table.where('id', context.id!).update(row).returning(mapper.columns as string[]));
    if (!stored) return existing(await readItem(resource, context.id!, db));
    const item = mapper.toEntity(stored);
    await loadToMany(mapper, [item], db);
    return item;
  }

  /** The write in a transaction: the lock and check of an If-Match, then the item (and what is nested in it). */
  async function writeIn(trx: Knex.Transaction, data: Entity, context: ProcessContext): Promise<Entity | undefined> {
    if (context.expected) {
      // If-Match held when the item was read: lock it and check nobody changed it since (assert-unchanged.ts).
      const { resource, id, expected } = context;
      await assertUnchanged({ trx, dialect: database.dialect, resource, table: mapperOf(resource).table, id: id!, expected, reread: () => readItem(resource, id!, trx) });
    }
    // One statement (RETURNING the stored columns) when nothing is nested, no links change and no If-Match is held:
    // no read back.
    if (isSingleStatement(data, context)) return writeOne(data, context, trx);
    if (context.operation.kind === 'delete') {
      await trx(mapperOf(context.resource).table).where('id', context.id!).delete();
      return undefined;
    }
    // No identifier: a new item (POST, or a custom operation at collection level); else the item read is updated.
    const id = await persist(trx, context.resource, data, context.id, context.previous);
    return existing(await readItem(context.resource, id, trx));
  }

  const processor: StateProcessor = {
    async process(data, context) {
      try {
        // Inside the write stage's transaction (a processor or hook of the user's runs in it too): write there.
        if (context.transaction) return await writeIn(context.transaction, data, context);
        if (isSingleStatement(data, context)) return await writeOne(data, context);
        return await transaction((trx) => writeIn(trx, data, context));
      } catch (error) {
        throw writeError(error, { registry, dialect: database.dialect, resource: context.resource, data, deleting: context.operation.kind === 'delete' });
      }
    },
  };

  async function existingIds(resource: ResourceMetadata, ids: readonly number[]): Promise<Set<number>> {
    const found = new Set<number>();
    for (const part of chunks([...new Set(ids)])) {
      const rows = await shaped<{ id: number }>(`existing ${resource.table} ${part.length}`, part, () => database.knex(resource.table).select('id').whereIn('id', part));
      for (const row of rows) found.add(Number(row.id));
    }
    return found;
  }

  const isUnique: UniquenessCheck = async (resource, values, exceptId) => {
    const query = limitTo(database.knex(mapperOf(resource).table).select('id'), 1);
    for (const { field, value, ignoreCase } of values) {
      const stored = (field.kind === 'scalar' ? database.dialect.toDb(field.type, value) : value) as Knex.Value;
      // A case-insensitive Unique: the same lower() as its index (`desired-schema.ts`), so check and index agree.
      if (ignoreCase && typeof stored === 'string') query.whereRaw('lower(??) = lower(?)', [field.column, stored]);
      else query.where(field.column, stored);
    }
    if (exceptId !== undefined) query.whereNot('id', exceptId);
    return (await run(query)).length === 0;
  };

  return {
    provider,
    processor,
    readItem,
    readMany,
    existingIds,
    isUnique,
    execute: write,
    transaction,
  };
}
