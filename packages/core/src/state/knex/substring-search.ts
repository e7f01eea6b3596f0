/**
 * Reading a search on a trigram index well (SQLite's FTS5 tables; PostgreSQL's planner reads pg_trgm by itself): the
 * count of a lone search from the index alone, and the page's plan chosen from the number of matches.
 *
 * The plan needs that number before the page is read. The first read of a search counts first, in a statement of its
 * own; the number is then kept, per search (the count's SQL and values), and the next reads of the same search choose
 * their plan from it, reading the page and its count in one statement (one statement fewer), and keep that count in
 * turn. After `REFRESH_AFTER` such reads the search counts first again, which reads
 * the table's size again too. A kept number only ever chooses between two plans that read the same rows: when the table
 * changed since, the plan may be the slower one for a few reads, never the answer wrong.
 */
import type { PageRequest, ResourceMetadata } from '../../metadata/types.js';
import type { Database } from '../database.js';
import type { Condition } from '../../metadata/conditions.js';
import type { SubstringIndexUse } from '../sql/conditions-sql.js';
import type { PageSpec } from '../sql/page-sql.js';
import type { RowMapper } from './row-mapper.js';
import type { StatementRunner } from './statements.js';
import { SqlWriter } from '../sql/sql-writer.js';

/**
 * The number of matches a search had when last read, the table's size when it last counted first, and the reads since.
 */
export interface SearchCount {
  readonly total: number;
  readonly size: number;
  readonly reads: number;
}

/**
 * Searches whose last count is kept, and the longest key (SQL and values, in characters) kept. Past the number, all
 * are forgotten and the next reads count first again; a longer key is not kept (that search always counts first). A
 * search's values are the client's to choose (a GraphQL list can hold a megabyte of them): this bounds the memory to
 * about 4 MB.
 */
const KEPT_SEARCHES = 1000;
const LONGEST_KEY = 2048;

/** Reads a kept count chooses the plan for before the search counts first again (and reads the table's size again). */
const REFRESH_AFTER = 100;

/** The values of a count as a key: JSON, with BigInts (which JSON refuses) as text. */
const keyOf = (bindings: readonly unknown[]): string =>
  JSON.stringify(bindings, (_key, value: unknown) => (typeof value === 'bigint' ? `${value}n` : value));

type CompiledCount = { readonly sql: string; readonly bindings: readonly unknown[] };

export interface SubstringSearch {
  /**
   * The trigram index use of a page whose only condition is an exact search on that index (in as many single-member
   * groups as the filter put it in, on the resource's own column, no subresource parent): the index holds the answer,
   * its matches being the table's (triggers keep it in step), so the count can read it alone, without reading a row of
   * the table (several times faster on a million rows: docs/performance.md). Undefined otherwise.
   */
  soleSearch(spec: PageSpec, uses: readonly SubstringIndexUse[]): SubstringIndexUse | undefined;
  /**
   * The count of a sole search from its index alone, as `n`, and in the same statement the table's largest id, as
   * `size`. Its SQL is the same for every search of an index: it is built once per index and run with the search's
   * value alone.
   */
  countFromIndex(resource: ResourceMetadata, use: SubstringIndexUse): Promise<{ n: unknown; size: unknown }[]>;
  /** The table's size as the plan weighs it: its largest id (cheap to read, never less than its number of rows). */
  size(resource: ResourceMetadata): Promise<number>;
  /**
   * How a page of `total` matches reads trigram indexes. Walking the index of the page's order and testing each row
   * reads about (offset + limit) × rows / total rows; reading the index's matches reads `total` rows and sorts them,
   * each costing more than a walked row (on SQLite, FTS5 lookup included: the weight of two, docs/performance.md).
   * Dense matches (a common word) are found sooner by the walk, sparse ones (a rare word) by the index.
   */
  plan(page: PageRequest, count: SearchCount): 'index' | 'scan';
  /**
   * A search (its count's SQL and values): what its last read counted, unless it is time to count first again, and how
   * to keep what this read counted (its key is worked out once per read).
   */
  search(count: CompiledCount): { readonly last: SearchCount | undefined; keep(found: SearchCount): void };
}

export function createSubstringSearch(
  database: Database,
  mapperOf: (resource: ResourceMetadata) => RowMapper,
  select: StatementRunner['select'],
): SubstringSearch {
  /** Per count SQL (the same string for the same search), per values; `kept` of them in all. */
  const counts = new Map<string, Map<string, SearchCount>>();
  let kept = 0;
  const matches = database.dialect.substringMatches;

  return {
    soleSearch(spec, uses) {
      const [use] = uses;
      if (uses.length !== 1 || !use!.condition.exact || !matches || spec.parent || spec.conditions.length !== 1)
        return undefined;
      let condition: Condition = spec.conditions[0]!;
      while ((condition.kind === 'all' || condition.kind === 'any') && condition.conditions.length === 1)
        condition = condition.conditions[0]!;
      return condition.kind === 'match' && !condition.path.includes('.') ? use : undefined;
    },
    countFromIndex(resource, use) {
      const { index, condition } = use;
      const table = mapperOf(resource).table;
      const { sql, bindings } = matches!(index, condition.value);
      const w = new SqlWriter().raw(
        `select (select count(*) from ?? where ${sql}) as n, (select max(??) from ??) as size`,
        [index, ...bindings, 'id', table],
      );
      return select({ sql: w.toString(), bindings: w.bindings });
    },
    async size(resource) {
      const table = mapperOf(resource).table;
      const w = new SqlWriter().sql('select max(').id('id').sql(') as ').id('n').sql(' from ').id(table);
      const [largest] = await select<{ n: unknown }>({ sql: w.toString(), bindings: w.bindings });
      return Number(largest?.n ?? 0);
    },
    plan(page, { total, size }) {
      return (page.offset + page.itemsPerPage) * size < 2 * total * total ? 'scan' : 'index';
    },
    search({ sql, bindings }) {
      const values = keyOf(bindings);
      const last = counts.get(sql)?.get(values);
      return {
        last: last && last.reads < REFRESH_AFTER ? last : undefined,
        keep(found) {
          if (sql.length + values.length > LONGEST_KEY) return;
          let ofShape = counts.get(sql);
          if (ofShape?.has(values)) {
            ofShape.set(values, found);
            return;
          }
          if (kept >= KEPT_SEARCHES) {
            counts.clear();
            kept = 0;
            ofShape = undefined;
          }
          if (!ofShape) counts.set(sql, (ofShape = new Map()));
          ofShape.set(values, found);
          kept++;
        },
      };
    },
  };
}
