/**
 * The built-in state provider and processor, on knex. A collection read is one statement for the page with its count
 * (a sub-query) and the to-one items it embeds (joined, `embed-joins.ts`), and one per to-many relation for the whole
 * page (never one per item); a subresource read first checks its parents. Writes run in one transaction: nested
 * writes first, then the item, then its many-to-many links; the stored item is read back.
 */
import { listChunks } from './chunks.js';
import type { Knex } from 'knex';
// The contracts' database handles are knex's (declared there): this file hands them over.
import type {} from '../database-handles.js';
import { ApiError } from '../../errors.js';
import type { ItemId, MetadataRegistry, ResourceMetadata } from '../../metadata/types.js';
import { readItemId } from '../../metadata/identifier.js';
import {
  type CollectionPage,
  type Entity,
  NestedWrite,
  type PageRequest,
  type ParentLink,
  type ProcessContext,
  type StateContext,
  type StateProcessor,
  type StateProvider,
} from '../../metadata/types.js';
import type { Database } from '../database.js';
import type { UniquenessCheck } from '../../validation/validate.js';
import { assertUnchanged } from './assert-unchanged.js';
import { buildDesiredSchema } from '../migrations/desired-schema.js';
import { createEmbedJoins } from './embed-joins.js';
import { collectionQuery } from '../collection-query.js';
import type { SubstringIndexUse } from '../sql/conditions-sql.js';
import {
  buildCountStatement,
  isBackward,
  type PageSpec,
  type PageSqlOptions,
  buildRowsStatement,
  type Statement,
  TOTAL,
} from '../sql/page-sql.js';
import {
  buildExistingStatement,
  buildItemStatement,
  buildItemsStatement,
  buildLinksStatement,
  buildParentStatement,
  buildUniquenessStatement,
} from '../sql/item-sql.js';
import { MAX_STATEMENTS } from './direct-path.js';
import { buildRowMapper, type RowMapper, resolveToManyLinks } from './row-mapper.js';
import type { Transact } from './group-transactions.js';
import { createStatementRunner } from './statements.js';
import { createSubstringSearch } from './substring-search.js';
import { limitToLiveItems } from './live-rows.js';
import { restoreItem, type RestoreParts } from './restore-item.js';
import { translateWriteError } from './write-errors.js';
import { makeInsertId, type ReturningWrite, runReturningWrite } from './returning-write.js';
import { createRetriedTransact, runRetried } from './retried-transaction.js';
import { changesCredentials } from '../credentials-stamp.js';
import { BoundedMemo } from '../../bounded-memo.js';

export interface KnexState {
  readonly provider: StateProvider;
  readonly processor: StateProcessor;
  /** Reads one item by id, with its to-many relations; null when absent. */
  readItem(resource: ResourceMetadata, id: ItemId, db?: Knex): Promise<Entity | null>;
  /** Reads items by id, with the to-many relations named; in id order. `db`: inside a transaction. */
  readMany(resource: ResourceMetadata, ids: readonly ItemId[], toMany: readonly string[], db?: Knex): Promise<Entity[]>;
  /** Which of `ids` exist in the resource's table. */
  existingIds(resource: ResourceMetadata, ids: readonly ItemId[]): Promise<Set<ItemId>>;
  isUnique: UniquenessCheck;
  /**
   * One write statement (`StateContext.execute`): alone, it shares its commit with the other writes of the turn on
   * SQLite; in a transaction of `transaction`'s (`db`), it runs there.
   */
  execute<T = Record<string, unknown>>(query: Knex.QueryBuilder, db?: Knex): Promise<T[]>;
  /** Runs `work` in a transaction: on an SQLite file, one that shares its commit (`group-transactions.ts`). */
  readonly transaction: Transact;
  /** `StateContext.toRow`: a resource's values as its table's row on this database. */
  toRow(resource: string, values: Readonly<Record<string, unknown>>): Record<string, unknown>;
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
  const fields = resource.fields
    .filter((field) => field.kind === 'scalar' && field.type === 'password')
    .map((field) => field.name);
  return options.userRoles?.resource === resource ? [...fields, options.userRoles.field] : fields;
}

/** When a write happens and who makes it: the same for the item and every item nested in it. */
interface Writer {
  readonly at: Date;
  readonly by: ItemId | null;
}

function writerOf(context: ProcessContext): Writer {
  const id = context.caller.user?.id;
  return { at: new Date(), by: typeof id === 'number' || typeof id === 'string' ? id : null };
}

export function createKnexState(
  database: Database,
  registry: MetadataRegistry,
  options: KnexStateOptions = {},
): KnexState {
  const mappers = new Map<string, RowMapper>(
    registry.resources.map((r) => [r.name, buildRowMapper(r, registry, database.dialect)]),
  );
  const mapperOf = (resource: ResourceMetadata) => mappers.get(resource.name)!;
  const credentialFields = new Map(registry.resources.map((r) => [r.name, credentialFieldsOf(r, options)]));

  /**
   * The row of a write, with the "tokens valid after" instant set when it starts the item's tokens afresh: on a
   * resource holding credentials, an item created, or one whose password or roles get a new value. Every write of the
   * built-in processor (REST, GraphQL, custom operations calling `next`, nested items) comes through here.
   */
  function rowOf(
    resource: ResourceMetadata,
    data: Entity,
    creating: boolean,
    previous: Entity | null | undefined,
    writer: Writer,
  ): Record<string, unknown> {
    const mapper = mapperOf(resource);
    const row = mapper.toRow(data);
    // A new item's UUID, when the framework makes it, or the database cannot return the one it makes (MariaDB);
    // else the database's default or auto-increment does.
    if (creating) {
      const id = makeInsertId(database.dialect, resource.identifier);
      if (id !== undefined) row.id = id;
    }
    // The timestamps and blame relations are set here, where every write passes, and nowhere else.
    mapper.stampRow(row, { creating, at: writer.at, by: writer.by });
    if (
      mapper.tokensValidAfter &&
      (creating || changesCredentials(credentialFields.get(resource.name)!, data, previous))
    )
      row[mapper.tokensValidAfter] = Date.now();
    return row;
  }
  const runner = createStatementRunner(database);
  const { rows: run, select, write } = runner;
  /** Transactions: on an SQLite file, ones that share their commits (`group-transactions.ts`); knex's elsewhere. */
  // A deadlock or serialization failure runs the whole transaction again (`retried-transaction.ts`).
  const transaction: Transact = createRetriedTransact(
    database.dialect,
    runner.transaction ?? ((work) => database.knex.transaction(work)),
  );
  const substringIndexes = new Map(
    buildDesiredSchema(registry).tables.map((table) => [
      table.name,
      new Set(table.substringIndexes.map((index) => index.column)),
    ]),
  );
  const substringSearch = createSubstringSearch(database, mapperOf, select);
  const embedJoins = createEmbedJoins(registry, mapperOf);

  async function loadToMany(mapper: RowMapper, items: Entity[], db: Knex, only?: readonly string[]): Promise<void> {
    const links = only ? mapper.toMany.filter((l) => only.includes(l.field.name)) : mapper.toMany;
    if (links.length === 0 || items.length === 0) return;
    const byId = new Map(items.map((item) => [item.id!, item]));
    for (const { field, table, ownerColumn, targetColumn } of links) {
      for (const item of items) item[field.name] = [];
      const target = registry.resource(field.target);
      for (const ids of listChunks([...byId.keys()])) {
        const rows = await select<{ id: unknown; owner: unknown }>(
          buildLinksStatement({ table, ownerColumn, targetColumn }, target, ids),
          db,
        );
        for (const row of rows)
          (byId.get(readItemId(mapper.identifier, row.owner))![field.name] as ItemId[]).push(
            readItemId(target.identifier, row.id),
          );
      }
    }
  }

  /**
   * One item by id: a live one, or (`deletedToo`, the read of a `restore`) whether deleted or not; null when there is
   * no such row.
   */
  async function readItem(
    resource: ResourceMetadata,
    id: ItemId,
    db: Knex = database.knex,
    deletedToo = false,
  ): Promise<Entity | null> {
    const mapper = mapperOf(resource);
    const [row] = await select(buildItemStatement(resource, mapper.table, mapper.columns, id, deletedToo), db);
    if (!row) return null;
    const item = mapper.toEntity(row);
    await loadToMany(mapper, [item], db);
    return item;
  }

  async function readMany(
    resource: ResourceMetadata,
    ids: readonly ItemId[],
    toMany: readonly string[],
    db: Knex = database.knex,
  ): Promise<Entity[]> {
    const mapper = mapperOf(resource);
    const items: Entity[] = [];
    for (const part of listChunks([...new Set(ids)])) {
      const rows = await select(buildItemsStatement(resource, mapper.table, mapper.columns, part), db);
      items.push(...rows.map((row) => mapper.toEntity(row)));
    }
    await loadToMany(mapper, items, db, toMany);
    return items;
  }

  /** Every parent exists and holds the next one (the last holds the collection read). */
  async function parentsHold(parents: readonly ParentLink[]): Promise<boolean> {
    for (let index = 0; index < parents.length; index++) {
      const parent = parents[index]!;
      const owner = index > 0 ? parents[index - 1]! : undefined;
      const linkedFrom = owner && {
        links: resolveToManyLinks(owner.field, registry),
        ownerId: owner.id,
        joinTable: owner.field.joinTable !== undefined,
      };
      if ((await select(buildParentStatement(parent.resource, parent.id, linkedFrom))).length === 0) return false;
    }
    return true;
  }

  const sqlOptions: PageSqlOptions = { registry, dialect: database.dialect, substringIndexes };

  /** Partial and cursor pages read one item more, to know whether a next page exists. */
  const lookAheadOf = ({ page }: StateContext): number => (page && (page.partial || page.cursor) ? 1 : 0);

  /** The page a context reads, as `state/sql/page-sql.ts` writes it: the filters' conditions and orders, as data. */
  function pageSpec(context: StateContext): PageSpec {
    const { page, resource } = context;
    const { conditions, orders } = collectionQuery(context);
    const parent = context.parents[context.parents.length - 1];
    return {
      resource,
      columns: mapperOf(resource).columns,
      conditions,
      orders,
      ...(parent ? { parent: { links: resolveToManyLinks(parent.field, registry), id: parent.id } } : {}),
      cursor: page?.cursor ?? null,
      limit: page ? page.itemsPerPage + lookAheadOf(context) : undefined,
      offset: page?.offset ?? 0,
      joins: embedJoins.joinsOf(context.embed),
    };
  }

  /**
   * The total of a page read with its count: in every row. A page without rows has none: at offset 0 the total is 0
   * (the count has the page's conditions), past it the count is read alone (a page past the end, rare).
   */
  async function totalOf(
    rows: readonly Record<string, unknown>[],
    page: PageRequest,
    countAlone: () => Promise<{ n: unknown }[]>,
  ): Promise<unknown> {
    if (rows.length > 0) return rows[0]![TOTAL];
    return page.offset === 0 ? 0 : (await countAlone())[0]?.n;
  }

  /**
   * Statements of unfiltered pages, by shape: their text is written once per resource, joins and page kind (counted or
   * not, from the start or at an offset, and by cursor, which bounds of the id it has), and their values are the
   * cursor's bounds and the offset, in that order (checked when the text is first written).
   */
  const plainStatements = new BoundedMemo<string, string>(MAX_STATEMENTS);
  function plainRows(
    spec: PageSpec,
    page: PageRequest | null,
    count: boolean,
  ): { sql: string; bindings: readonly unknown[] } {
    const { cursor } = spec;
    const key = `${spec.resource.name}${spec.joins.map((join) => ` +${join.field.name}`).join('')} ${page ? `${count ? 'counted' : 'partial'} ${spec.limit} ${spec.offset ? 'offset' : 'start'} ${cursor ? `${cursor.direction} ${cursor.greaterThan !== undefined} ${cursor.lessThan !== undefined}` : ''}` : 'all'}`;
    const bindings = [cursor?.greaterThan, cursor?.lessThan, spec.offset || undefined].filter(
      (value) => value !== undefined,
    );
    const sql = plainStatements.get(key);
    if (sql) return { sql, bindings };
    const written = buildRowsStatement(spec, sqlOptions, 'index', count ? { kind: 'conditions' } : undefined);
    if (
      written.bindings.length !== bindings.length ||
      written.bindings.some((value, index) => value !== bindings[index])
    )
      throw new Error(`The page statement "${key}" binds other values than its shape says.`);
    plainStatements.keep(key, written.sql);
    return written;
  }

  /**
   * The rows of a page and its total. An unfiltered top-level page reads its count as a sub-query of the page's
   * statement: one statement instead of two (each a visible cost under load on SQLite, one round trip on
   * PostgreSQL), and the count and the rows come from the same snapshot. So does a filtered one, unless it searches a
   * trigram index (SQLite's FTS5), where the number of matches decides how the page is read (`readSearchPage`).
   */
  async function readRows(context: StateContext): Promise<{ rows: Record<string, unknown>[]; total: unknown }> {
    const { page } = context;
    const spec = pageSpec(context);
    const plain = spec.conditions.length === 0 && spec.orders.length === 0 && !spec.parent;
    const counted = page !== null && !page.partial;
    const rows = (count: boolean) =>
      select(
        plain
          ? plainRows(spec, page, count)
          : buildRowsStatement(spec, sqlOptions, 'index', count ? { kind: 'conditions' } : undefined),
      );
    if (!counted) return { rows: page?.itemsPerPage === 0 ? [] : await rows(false), total: undefined };
    // An unfiltered page searches no trigram index, and its count comes in the page's statement: its count statement
    // is written only if it runs alone (an empty page past the first).
    const count = plain ? null : buildCountStatement(spec, sqlOptions);
    const countAlone = () => select<{ n: unknown }>(count ?? buildCountStatement(spec, sqlOptions));
    if (page.itemsPerPage === 0) return { rows: [], total: (await countAlone())[0]?.n };
    if (count === null || count.uses.length === 0) {
      const found = await rows(true);
      return { rows: found, total: await totalOf(found, page, countAlone) };
    }
    return readSearchPage(context, spec, page, count);
  }

  /**
   * A page searching a trigram index (SQLite): the number of matches decides how the page is read. The same search's
   * last count chooses, and the count comes in the page's statement; the first read of a search counts first. A lone
   * search counts from its index alone.
   */
  async function readSearchPage(
    context: StateContext,
    spec: PageSpec,
    page: PageRequest,
    count: Statement & { readonly uses: readonly SubstringIndexUse[] },
  ) {
    const sole = substringSearch.soleSearch(spec, count.uses);
    const countAlone = () => select<{ n: unknown }>(count);
    const search = substringSearch.search(count);
    const { last } = search;
    if (last && last.total > page.offset) {
      const rows = await select(
        buildRowsStatement(
          spec,
          sqlOptions,
          substringSearch.plan(page, last),
          sole ? { kind: 'index', use: sole } : { kind: 'conditions' },
        ),
      );
      const total = await totalOf(rows, page, countAlone);
      search.keep({ total: Number(total), size: last.size, reads: last.reads + 1 });
      return { rows, total };
    }
    // The index's count reads the table's size in the same statement; a count through the table does not.
    const [counted]: readonly ({ n: unknown; size?: unknown } | undefined)[] = await (sole
      ? substringSearch.countFromIndex(context.resource, sole)
      : countAlone());
    const total = Number(counted?.n ?? 0);
    if (total <= page.offset) return { rows: [], total };
    const found = {
      total,
      size: sole ? Number(counted?.size ?? 0) : await substringSearch.size(context.resource),
      reads: 0,
    };
    search.keep(found);
    return { rows: await select(buildRowsStatement(spec, sqlOptions, substringSearch.plan(page, found))), total };
  }

  async function readPage(context: StateContext): Promise<CollectionPage | null> {
    if (context.parents.length > 0 && !(await parentsHold(context.parents))) return null;
    const mapper = mapperOf(context.resource);
    const { page } = context;
    const lookAhead = lookAheadOf(context);
    const { rows, total } = await readRows(context);
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
    provide: (context) =>
      context.operation.collection
        ? readPage(context)
        : context.operation.restores
          ? readItem(context.resource, context.id!, database.knex, true)
          : readItem(context.resource, context.id!),
  };

  /** Writes one item (and, first, the items nested in it); returns its id. */
  async function persist(
    trx: Knex.Transaction,
    writer: Writer,
    resource: ResourceMetadata,
    data: Entity,
    id: ItemId | undefined,
    previous: Entity | null,
    compared: Entity | null | undefined = previous,
  ): Promise<ItemId> {
    const mapper = mapperOf(resource);
    const values: Entity = { ...data };
    for (const field of resource.fields) {
      const value = values[field.name];
      if (value instanceof NestedWrite) {
        values[field.name] = await persist(
          trx,
          writer,
          registry.resource(value.resource),
          value.data,
          value.id,
          null,
          value.previous,
        );
      }
    }
    if (id === undefined) {
      const row = rowOf(resource, values, true, null, writer);
      const [inserted] = await runReturningWrite<{ id: unknown }>(database.dialect, {
        query: trx(mapper.table).insert(row),
        kind: 'insert',
        table: mapper.table,
        key: row.id === undefined ? undefined : { id: row.id },
        columns: ['id'],
        run: async (query) => query,
        db: trx,
      });
      id = readItemId(resource.identifier, typeof inserted === 'object' ? inserted.id : inserted);
    } else {
      const row = rowOf(resource, values, false, compared, writer);
      // No row updated: the item was deleted since it was read (by a request running beside this one).
      if (
        Object.keys(row).length > 0 &&
        (await limitToLiveItems(trx(mapper.table).where('id', id), resource).update(row)) === 0
      ) {
        throw previous
          ? new ApiError('ITEM_NOT_FOUND', 'Not Found')
          : new ApiError('CONFLICT', 'A related item does not exist (any more).');
      }
    }
    for (const links of mapper.toMany) {
      const { field } = links;
      const ids = values[field.name];
      // Only the owning side of a many-to-many is written, and only when the value changed (a kept value is the array
      // read).
      if (!field.joinTable || field.mappedBy !== undefined || !Array.isArray(ids) || ids === previous?.[field.name])
        continue;
      await trx(links.table).where(links.ownerColumn, id).delete();
      for (const part of listChunks(ids as ItemId[])) {
        if (part.length > 0)
          await trx(links.table).insert(
            part.map((target) => ({ [links.ownerColumn]: id, [links.targetColumn]: target })),
          );
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
      if (
        field.kind === 'toMany' &&
        field.joinTable &&
        field.mappedBy === undefined &&
        Array.isArray(value) &&
        value !== context.previous?.[field.name]
      )
        return false;
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
  async function writeOne(
    data: Entity,
    context: ProcessContext,
    writer: Writer,
    trx?: Knex.Transaction,
  ): Promise<Entity | undefined> {
    const { resource, operation } = context;
    const mapper = mapperOf(resource);
    const db = trx ?? database.knex;
    // Inside a transaction the statement runs there; alone, with the shared commits of the turn.
    const run = <T>(query: Knex.QueryBuilder) => write<T>(query, trx);
    const table = db(mapper.table);
    const returning = (
      query: Knex.QueryBuilder,
      kind: ReturningWrite['kind'],
      key: ReturningWrite['key'],
      columns: readonly string[],
    ) => runReturningWrite(database.dialect, { query, kind, table: mapper.table, key, columns, run, db });
    if (operation.kind === 'delete') {
      if (resource.softDelete) await softDelete(resource, context.id!, db, run);
      else await returning(table.where('id', context.id!).delete(), 'delete', { id: context.id! }, ['id']);
      return undefined;
    }
    const row = rowOf(resource, data, context.id === undefined, context.previous, writer);
    let stored: Record<string, unknown> | undefined;
    if (context.id === undefined)
      [stored] = await returning(
        table.insert(row),
        'insert',
        row.id === undefined ? undefined : { id: row.id },
        mapper.columns,
      );
    else if (Object.keys(row).length > 0)
      [stored] = await returning(
        limitToLiveItems(table.where('id', context.id!), resource).update(row),
        'update',
        { id: context.id! },
        mapper.columns,
      );
    if (!stored) return existing(await readItem(resource, context.id!, db));
    const item = mapper.toEntity(stored);
    await loadToMany(mapper, [item], db);
    return item;
  }

  /**
   * DELETE of a soft-deleted resource: the deletion field set, on a live item only. None updated: another request
   * deleted it first (two DELETEs at once: one 204, the other this 404), as after a removed row.
   */
  async function softDelete(
    resource: ResourceMetadata,
    id: ItemId,
    db: Knex,
    run: (query: Knex.QueryBuilder) => Promise<unknown>,
  ): Promise<void> {
    const { column } = resource.softDelete!;
    const mapper = mapperOf(resource);
    const row: Record<string, unknown> = { [column]: database.dialect.toDb('datetime', new Date()) };
    // A deleted account's tokens end with it: a restore brings the account back, not the sessions it had.
    if (mapper.tokensValidAfter) row[mapper.tokensValidAfter] = Date.now();
    const updated = await runReturningWrite(database.dialect, {
      query: limitToLiveItems(db(mapper.table).where('id', id), resource).update(row),
      kind: 'update',
      table: mapper.table,
      key: { id },
      columns: ['id'],
      run,
      db,
    });
    if (updated.length === 0) throw new ApiError('ITEM_NOT_FOUND', 'Not Found');
  }

  /** The write in a transaction: the lock and check of an If-Match, then the item (and what is nested in it). */
  async function writeIn(
    trx: Knex.Transaction,
    data: Entity,
    context: ProcessContext,
    writer: Writer,
  ): Promise<Entity | undefined> {
    if (context.expected) {
      // If-Match held when the item was read: lock it and check nobody changed it since (assert-unchanged.ts).
      const { resource, id, expected } = context;
      await assertUnchanged({
        trx,
        dialect: database.dialect,
        resource,
        table: mapperOf(resource).table,
        id: id!,
        expected,
        reread: () => readItem(resource, id!, trx),
      });
    }
    // One statement (RETURNING the stored columns) when nothing is nested, no links change and no If-Match is held:
    // no read back.
    if (isSingleStatement(data, context)) return writeOne(data, context, writer, trx);
    if (context.operation.kind === 'delete') {
      if (context.resource.softDelete) await softDelete(context.resource, context.id!, trx, async (query) => query);
      else await trx(mapperOf(context.resource).table).where('id', context.id!).delete();
      return undefined;
    }
    // No identifier: a new item (POST, or a custom operation at collection level); else the item read is updated.
    const id = await persist(trx, writer, context.resource, data, context.id, context.previous);
    return existing(await readItem(context.resource, id, trx));
  }

  const restoreParts: RestoreParts = {
    knex: database.knex,
    dialect: database.dialect,
    mapperOf,
    write,
    read: run,
    loadToMany,
  };

  const processor: StateProcessor = {
    async process(data, context) {
      const writer = writerOf(context);
      try {
        if (context.operation.restores)
          return await restoreItem(
            context.resource,
            context.id!,
            { creating: false, at: writer.at, by: writer.by },
            restoreParts,
            context.transaction,
          );
        // Inside the write stage's transaction (a processor or hook of the user's runs in it too): write there.
        if (context.transaction) return await writeIn(context.transaction, data, context, writer);
        // A single statement is a transaction of its own, and may deadlock as well.
        if (isSingleStatement(data, context))
          return await runRetried(database.dialect, () => writeOne(data, context, writer));
        return await transaction((trx) => writeIn(trx, data, context, writer));
      } catch (error) {
        throw translateWriteError(error, {
          registry,
          dialect: database.dialect,
          resource: context.resource,
          data,
          deleting: context.operation.kind === 'delete',
        });
      }
    },
  };

  async function existingIds(resource: ResourceMetadata, ids: readonly ItemId[]): Promise<Set<ItemId>> {
    const found = new Set<ItemId>();
    for (const part of listChunks([...new Set(ids)])) {
      const rows = await select<{ id: unknown }>(buildExistingStatement(resource, part));
      for (const row of rows) found.add(readItemId(resource.identifier, row.id));
    }
    return found;
  }

  const isUnique: UniquenessCheck = async (resource, values, exceptId) => {
    const compared = values.map(({ field, value, ignoreCase }) => ({
      column: field.column,
      value: field.kind === 'scalar' ? database.dialect.toDb(field.type, value) : value,
      ignoreCase: ignoreCase === true,
    }));
    const statement = buildUniquenessStatement(resource, mapperOf(resource).table, compared, exceptId);
    return (await select(statement)).length === 0;
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
    toRow(name, values) {
      const mapper = mappers.get(name);
      if (!mapper) throw new Error(`toRow: no resource is named "${name}".`);
      const { fieldsByName } = registry.resource(name);
      for (const key of Object.keys(values)) {
        const field = fieldsByName.get(key);
        // Only what the resource's own row holds: to-many links and computed fields live elsewhere.
        if (key !== 'id' && (!field || field.kind === 'toMany' || (field.kind === 'scalar' && field.computed)))
          throw new Error(`toRow: "${key}" is not a stored field of ${name}.`);
      }
      const row = mapper.toRow(values as Entity);
      return 'id' in values ? { id: values.id, ...row } : row;
    },
  };
}
