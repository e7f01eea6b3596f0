/**
 * Between table rows and entities, for one resource: the columns to select, a row → entity conversion, and an
 * entity → row conversion for writes. Built once per resource and kept.
 */
import type { MetadataRegistry, ResourceMetadata, ScalarFieldMetadata, ToManyFieldMetadata, ToOneFieldMetadata } from '../../metadata/types.js';
import type { Entity } from '../contracts.js';
import type { Dialect } from '../dialects/dialect.js';

export interface RowMapper {
  readonly table: string;
  /** `id`, then the column of every scalar and to-one field. */
  readonly columns: readonly string[];
  /** To-many fields (loaded by a separate batched query) with the column holding their foreign key. */
  readonly toMany: readonly { readonly field: ToManyFieldMetadata; readonly table: string; readonly column: string }[];
  toEntity(row: Record<string, unknown>): Entity;
  /** The stored columns of the fields present in `entity` (to-many fields are never stored on this side). */
  toRow(entity: Entity): Record<string, unknown>;
}

export function buildRowMapper(resource: ResourceMetadata, registry: MetadataRegistry, dialect: Dialect): RowMapper {
  const stored = resource.fields.filter((f): f is ScalarFieldMetadata | ToOneFieldMetadata => f.kind !== 'toMany');
  const toMany = resource.fields
    .filter((f): f is ToManyFieldMetadata => f.kind === 'toMany')
    .map((field) => {
      const target = registry.resource(field.target);
      const owning = target.fields.find((f) => f.name === field.mappedBy) as ToOneFieldMetadata;
      return { field, table: target.table, column: owning.column };
    });

  return {
    table: resource.table,
    columns: ['id', ...stored.map((f) => f.column)],
    toMany,
    toEntity(row) {
      const entity: Entity = { id: Number(row.id) };
      for (const field of stored) {
        const value = row[field.column];
        entity[field.name] = field.kind === 'scalar' ? dialect.fromDb(field.type, value) : value === null || value === undefined ? null : Number(value);
      }
      return entity;
    },
    toRow(entity) {
      const row: Record<string, unknown> = {};
      for (const field of stored) {
        if (!(field.name in entity)) continue;
        const value = entity[field.name];
        row[field.column] = field.kind === 'scalar' ? dialect.toDb(field.type, value) : (value ?? null);
      }
      return row;
    },
  };
}
