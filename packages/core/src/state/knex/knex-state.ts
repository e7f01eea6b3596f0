/**
 * The built-in state provider and processor, on knex. A collection read is one query for the page, one for the
 * count, and one per to-many relation for the whole page (never one per item). Writes run in a transaction and
 * return the stored item, read back.
 */
import type { Knex } from 'knex';
import { ApiError } from '../../errors.js';
import type { MetadataRegistry, ResourceMetadata } from '../../metadata/types.js';
import type { CollectionPage, Entity, StateContext, StateProcessor, StateProvider } from '../contracts.js';
import type { Database } from '../database.js';
import { createFilterQuery } from './filter-query.js';
import { buildRowMapper, type RowMapper } from './row-mapper.js';

/** Keeps bound parameters per statement well below SQLite's limit when a page is large. */
const CHUNK = 500;

export interface KnexState {
  readonly provider: StateProvider;
  readonly processor: StateProcessor;
  /** Reads one item by id, with its to-many relations; null when absent. */
  readItem(resource: ResourceMetadata, id: number, db?: Knex): Promise<Entity | null>;
  /** Which of `ids` exist in the resource's table. */
  existingIds(resource: ResourceMetadata, ids: readonly number[]): Promise<Set<number>>;
}

export function createKnexState(database: Database, registry: MetadataRegistry): KnexState {
  const mappers = new Map<string, RowMapper>(
    registry.resources.map((r) => [r.name, buildRowMapper(r, registry, database.dialect)]),
  );
  const mapperOf = (resource: ResourceMetadata) => mappers.get(resource.name)!;

  async function loadToMany(mapper: RowMapper, items: Entity[], db: Knex): Promise<void> {
    if (mapper.toMany.length === 0 || items.length === 0) return;
    const byId = new Map(items.map((item) => [item.id!, item]));
    const ids = [...byId.keys()];
    for (const { field, table, column } of mapper.toMany) {
      for (const item of items) item[field.name] = [];
      for (let start = 0; start < ids.length; start += CHUNK) {
        const rows: { id: number; owner: number }[] = await db(table)
          .select('id', { owner: column })
          .whereIn(column, ids.slice(start, start + CHUNK))
          .orderBy('id');
        for (const row of rows) (byId.get(Number(row.owner))![field.name] as number[]).push(Number(row.id));
      }
    }
  }

  async function readItem(resource: ResourceMetadata, id: number, db: Knex = database.knex): Promise<Entity | null> {
    const mapper = mapperOf(resource);
    const row = await db(mapper.table).select(mapper.columns).where('id', id).first();
    if (!row) return null;
    const item = mapper.toEntity(row);
    await loadToMany(mapper, [item], db);
    return item;
  }

  async function readPage(context: StateContext): Promise<CollectionPage> {
    const mapper = mapperOf(context.resource);
    const { knex } = database;
    const { page, resource } = context;
    const alias = 't0';
    const from = () => knex(`${mapper.table} as ${alias}`);
    const rowsQuery = from().select(mapper.columns.map((column) => `${alias}.${column}`));
    const countQuery = page && !page.partial ? from().count({ n: '*' }) : undefined;
    const cursor = page?.cursor ?? null;
    const query = (builder: Knex.QueryBuilder, forCount: boolean) =>
      createFilterQuery({ db: knex, builder, resource, registry, dialect: database.dialect, alias, forCount, ordering: !cursor });
    const rows = query(rowsQuery, false);
    const count = countQuery && query(countQuery, true);
    for (const { filter, parsed } of context.filters) {
      filter.apply(rows, parsed);
      if (count) filter.apply(count, parsed);
    }

    // Cursor pagination reads by id only; reading backwards (towards the previous page) reads the other way round.
    let backward = false;
    if (cursor) {
      if (cursor.greaterThan !== undefined) rowsQuery.where(`${alias}.id`, '>', cursor.greaterThan);
      if (cursor.lessThan !== undefined) rowsQuery.where(`${alias}.id`, '<', cursor.lessThan);
      const forward = cursor.direction === 'desc' ? cursor.lessThan : cursor.greaterThan;
      const reverse = cursor.direction === 'desc' ? cursor.greaterThan : cursor.lessThan;
      backward = reverse !== undefined && forward === undefined;
      const flip = (d: 'asc' | 'desc') => (d === 'asc' ? 'desc' : 'asc');
      rowsQuery.orderBy(`${alias}.id`, backward ? flip(cursor.direction) : cursor.direction);
    } else {
      for (const { path, direction } of resource.defaultOrder) rows.orderBy(path, direction);
      rowsQuery.orderBy(`${alias}.id`, 'asc');
    }
    const lookAhead = page && (page.partial || cursor) ? 1 : 0;
    if (page) rowsQuery.limit(page.itemsPerPage + lookAhead).offset(page.offset);

    const [found, total] = await Promise.all([page?.itemsPerPage === 0 ? [] : rowsQuery, countQuery?.first()]);
    let items = (found as Record<string, unknown>[]).map((row) => mapper.toEntity(row));
    const hasMore = lookAhead > 0 && items.length > page!.itemsPerPage;
    if (hasMore) items = items.slice(0, page!.itemsPerPage);
    if (backward) items.reverse();
    await loadToMany(mapper, items, knex);
    const totalItems = total ? Number((total as { n: unknown }).n) : page ? undefined : items.length;
    return lookAhead > 0 ? { items, totalItems, hasMore } : { items, totalItems };
  }

  const provider: StateProvider = {
    provide: (context) => (context.operation.collection ? readPage(context) : readItem(context.resource, context.id!)),
  };

  const processor: StateProcessor = {
    async process(data, context) {
      const mapper = mapperOf(context.resource);
      try {
        return await database.knex.transaction(async (trx) => {
          if (context.operation.kind === 'delete') {
            await trx(mapper.table).where('id', context.id!).delete();
            return undefined;
          }
          let id = context.id;
          if (context.operation.kind === 'post') {
            const [inserted] = await trx(mapper.table).insert(mapper.toRow(data)).returning('id');
            id = Number(typeof inserted === 'object' ? (inserted as { id: number }).id : inserted);
          } else {
            const row = mapper.toRow(data);
            if (Object.keys(row).length > 0) await trx(mapper.table).where('id', id!).update(row);
          }
          return (await readItem(context.resource, id!, trx))!;
        });
      } catch (error) {
        if (database.dialect.isForeignKeyViolation(error)) {
          throw context.operation.kind === 'delete'
            ? new ApiError('STILL_REFERENCED', `This ${context.resource.name} cannot be deleted: other items still refer to it.`, { cause: error })
            : new ApiError('CONFLICT', 'A related item does not exist (any more).', { cause: error });
        }
        if (database.dialect.isUniqueViolation(error)) {
          throw new ApiError('CONFLICT', 'The write conflicts with an existing item (a unique value is already used).', { cause: error });
        }
        throw error;
      }
    },
  };

  async function existingIds(resource: ResourceMetadata, ids: readonly number[]): Promise<Set<number>> {
    const found = new Set<number>();
    const unique = [...new Set(ids)];
    for (let start = 0; start < unique.length; start += CHUNK) {
      const rows: { id: number }[] = await database.knex(resource.table).select('id').whereIn('id', unique.slice(start, start + CHUNK));
      for (const row of rows) found.add(Number(row.id));
    }
    return found;
  }

  return { provider, processor, readItem, existingIds };
}
