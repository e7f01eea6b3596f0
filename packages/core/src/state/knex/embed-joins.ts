/**
 * The to-one items a page's response embeds (`StateContext.embed`), read with the page: each relation to a resource
 * stored here becomes a LEFT JOIN of the page's statement (written by `state/sql/page-sql.ts`), and the joined columns
 * become the page's `related` items, exactly as `readMany` would give them. Relations to resources with a provider of
 * their own are left to the serializer.
 */
import { RESERVED_COLUMN_PREFIX } from '../../metadata/reserved-names.js';
import { readItemId } from '../../metadata/identifier.js';
import type { Entity, ItemId, MetadataRegistry, ResourceMetadata, ToOneFieldMetadata } from '../../metadata/types.js';
import { readsOnItsOwn } from '../compose.js';
import type { RowMapper } from './row-mapper.js';

/**
 * A to-one relation read with the page: LEFT JOIN its table as `alias`, its columns selected under names of their own,
 * `resource_api_j<join>_<column index>`: short (PostgreSQL cuts names at 63 bytes, whatever the column's length) and
 * never a column's name (declarations may not use the prefix).
 */
export interface EmbedJoin {
  readonly field: ToOneFieldMetadata;
  readonly alias: string;
  readonly target: ResourceMetadata;
  readonly columns: readonly (readonly [selected: string, column: string])[];
}

export interface EmbedJoins {
  /** The joins for a context's `embed` (the same array for the same response plan: worked out once). */
  joinsOf(embed: readonly ToOneFieldMetadata[] | undefined): readonly EmbedJoin[];
  /** The related items of joined rows, by resource and id; undefined without joins. */
  relatedOf(
    rows: readonly Record<string, unknown>[],
    joins: readonly EmbedJoin[],
  ): Map<string, Map<ItemId, Entity>> | undefined;
}

export function createEmbedJoins(
  registry: MetadataRegistry,
  mapperOf: (resource: ResourceMetadata) => RowMapper,
): EmbedJoins {
  const cache = new WeakMap<readonly ToOneFieldMetadata[], readonly EmbedJoin[]>();
  return {
    joinsOf(embed) {
      if (!embed || embed.length === 0) return [];
      let joins = cache.get(embed);
      if (!joins) {
        joins = embed
          .map((field) => ({ field, target: registry.resource(field.target) }))
          .filter(({ target }) => !readsOnItsOwn(target))
          .map(({ field, target }, index) => {
            const alias = `t0_e${index + 1}`;
            const columns = mapperOf(target).columns.map(
              (column, position) => [`${RESERVED_COLUMN_PREFIX}j${index + 1}_${position}`, column] as const,
            );
            return { field, alias, target, columns };
          });
        cache.set(embed, joins);
      }
      return joins;
    },
    relatedOf(rows, joins) {
      if (joins.length === 0) return undefined;
      const related = new Map<string, Map<ItemId, Entity>>();
      for (const { target, columns } of joins) {
        const mapper = mapperOf(target);
        let items = related.get(target.name);
        if (!items) related.set(target.name, (items = new Map()));
        for (const row of rows) {
          const id = row[columns[0]![0]];
          if (id === null || id === undefined || items.has(readItemId(target.identifier, id))) continue;
          const stored: Record<string, unknown> = {};
          for (const [selected, column] of columns) stored[column] = row[selected];
          items.set(readItemId(target.identifier, id), mapper.toEntity(stored));
        }
      }
      return related;
    },
  };
}
