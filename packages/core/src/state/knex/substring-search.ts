/**
 * Reading a search on a trigram index well (SQLite's FTS5 tables; PostgreSQL's planner reads pg_trgm by itself): the
 * count of a lone search from the index alone, and the page's plan chosen from that count.
 */
import type { Knex } from 'knex';
import type { ResourceMetadata } from '../../metadata/types.js';
import type { PageRequest } from '../contracts.js';
import type { Database } from '../database.js';
import type { SubstringIndexUse } from './filter-query.js';
import type { RowMapper } from './row-mapper.js';
import type { StatementRunner } from './statements.js';

export interface SubstringSearch {
  /**
   * When a count's only condition is an exact search on a trigram index, the index holds the answer: its matches are
   * the table's (triggers keep it in step), so the count reads it alone, without reading a row of the table (on a
   * million rows, 7 ms instead of 30). Recognized by its SQL: that of the count with the search alone, in as many
   * parentheses as the filter grouped it in. Its row has the count as `n` and the table's largest id as `size`, which
   * `plan` then need not read again. Undefined otherwise. Its SQL is the same for every search of an index: it is
   * built once per index and run with the search's value alone.
   */
  countFromIndex(resource: ResourceMetadata, countSql: string, uses: readonly SubstringIndexUse[]): Promise<{ n: unknown; size: unknown }[]> | undefined;
  /**
   * How a page of `total` matches reads trigram indexes. Walking the index of the page's order and testing each row
   * reads about (offset + limit) × rows / total rows; reading the index's matches reads `total` rows and sorts them,
   * each costing about twice a walked row (measured on SQLite: 0.3 µs a walked row, 0.6 to 1.1 µs a match, FTS5
   * lookup included). Dense matches (a common word) are found sooner by the walk, sparse ones (a rare word) by the
   * index. The table's size is its largest id: cheap to read, and never less than its number of rows; `size` when the
   * count's statement read it already.
   */
  plan(resource: ResourceMetadata, page: PageRequest, total: number, size?: number): Promise<'index' | 'scan'>;
}

export function createSubstringSearch(database: Database, mapperOf: (resource: ResourceMetadata) => RowMapper, shaped: StatementRunner['shaped']): SubstringSearch {
  /** Per index: the SQL of a count whose one condition is a search on that index, around and in its WHERE. */
  const soleSearchCounts = new Map<string, { before: string; condition: string; after: string }>();

  /** The table's size as the plan weighs it: its largest id (an SQL shape of its own, built once). */
  async function largestId(resource: ResourceMetadata): Promise<number> {
    const table = mapperOf(resource).table;
    const [largest] = await shaped<{ n: unknown }>(`size ${table}`, [], () => database.knex(table).max({ n: 'id' }));
    return Number(largest?.n ?? 0);
  }

  return {
    countFromIndex(resource, countSql, uses) {
      const [use] = uses;
      const counter = database.dialect.substringCount;
      if (uses.length !== 1 || !use!.condition.exact || !counter) return undefined;
      let sole = soleSearchCounts.get(use!.index);
      if (!sole) {
        const marker = '__resource_api_sole_condition__';
        const [before, after] = database.knex(`${mapperOf(resource).table} as t0`).count({ n: '*' }).whereRaw(marker).toSQL().toNative().sql.split(marker) as [string, string];
        const condition = database.knex.raw(use!.condition.sql, use!.condition.bindings as string[]).toSQL().toNative().sql;
        soleSearchCounts.set(use!.index, (sole = { before, condition, after }));
      }
      if (!countSql.startsWith(sole.before) || !countSql.endsWith(sole.after)) return undefined;
      let where = countSql.slice(sole.before.length, countSql.length - sole.after.length);
      while (where.startsWith('(') && where.endsWith(')') && where !== sole.condition) where = where.slice(1, -1);
      if (where !== sole.condition) return undefined;
      const { value } = use!.condition;
      return shaped(`substring count ${use!.index}`, [value], () => {
        const { sql, bindings } = counter(use!.index, value, mapperOf(resource).table, 'id');
        return database.knex.raw(sql, bindings as string[]);
      });
    },
    async plan(resource, page, total, size) {
      const rows = size ?? (await largestId(resource));
      return (page.offset + page.itemsPerPage) * rows < 2 * total * total ? 'scan' : 'index';
    },
  };
}
