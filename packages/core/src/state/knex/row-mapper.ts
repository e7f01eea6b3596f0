/**
 * Between table rows and entities, for one resource: the columns to select, a row → entity conversion, and an
 * entity → row conversion for writes. Built once per resource and kept.
 */
import { readItemId } from '../../metadata/identifier.js';
import type {
  Entity,
  IdentifierMetadata,
  ItemId,
  MetadataRegistry,
  ResourceMetadata,
  ScalarFieldMetadata,
  ToManyFieldMetadata,
  ToOneFieldMetadata,
} from '../../metadata/types.js';
import type { Dialect } from '../dialects/dialect.js';
import { attachTokensValidAfter, holdsCredentials, TOKENS_VALID_AFTER_COLUMN } from '../credentials-stamp.js';

export interface RowMapper {
  readonly table: string;
  /** The resource's identifier, to read its ids back from rows. */
  readonly identifier: IdentifierMetadata;
  /** `id`, then the column of every scalar and to-one field (and, for credentials, the "tokens valid after" one). */
  readonly columns: readonly string[];
  /** The "tokens valid after" column, on a resource that holds credentials (`credentials-stamp.ts`). */
  readonly tokensValidAfter: string | undefined;
  /** To-many fields, loaded by a separate batched query: where the links live (the target's table or a join table). */
  readonly toMany: readonly ToManyLinks[];
  toEntity(row: Record<string, unknown>): Entity;
  /** The stored columns of the fields present in `entity` (to-many fields are never stored on this side). */
  toRow(entity: Entity): Record<string, unknown>;
  /**
   * Sets the columns the framework stamps on a write (`timestamp` and `blame` fields) in `row`: all of them on create;
   * on an update, the `'update'` ones, and the `'create'` ones are taken out (they keep their stored value).
   */
  stampRow(row: Record<string, unknown>, stamp: WriteStamp): void;
}

/** When a write happens and who makes it: every item the write stores gets the same. */
export interface WriteStamp {
  readonly creating: boolean;
  readonly at: Date;
  /** The caller's id, or null for an anonymous write. */
  readonly by: ItemId | null;
}

/**
 * Where the links of a to-many field live: `SELECT <targetColumn>, <ownerColumn> FROM <table> WHERE <ownerColumn> IN
 * (…)`.
 */
export interface ToManyLinks {
  readonly field: ToManyFieldMetadata;
  readonly table: string;
  /** The column holding this side's id. */
  readonly ownerColumn: string;
  /** The column holding the target's id. */
  readonly targetColumn: string;
}

/** The links of a to-many field: the target's foreign key (one-to-many) or the join table (many-to-many). */
export function resolveToManyLinks(field: ToManyFieldMetadata, registry: MetadataRegistry): ToManyLinks {
  if (field.joinTable)
    return {
      field,
      table: field.joinTable.table,
      ownerColumn: field.joinTable.ownColumn,
      targetColumn: field.joinTable.targetColumn,
    };
  const target = registry.resource(field.target);
  const owning = target.fieldsByName.get(field.mappedBy!) as ToOneFieldMetadata;
  return { field, table: target.table, ownerColumn: owning.column, targetColumn: 'id' };
}

export function buildRowMapper(resource: ResourceMetadata, registry: MetadataRegistry, dialect: Dialect): RowMapper {
  const stored = resource.fields.filter(
    (f): f is ScalarFieldMetadata | ToOneFieldMetadata => f.kind !== 'toMany' && !(f.kind === 'scalar' && f.computed),
  );
  const toMany = resource.fields
    .filter((f): f is ToManyFieldMetadata => f.kind === 'toMany')
    .map((field) => resolveToManyLinks(field, registry));

  const tokensValidAfter = holdsCredentials(resource) ? TOKENS_VALID_AFTER_COLUMN : undefined;
  // Each to-one's target identifier, to read its ids as the target's (numbers, or UUID strings).
  const targetIdentifier = new Map(
    stored.filter((f) => f.kind === 'toOne').map((f) => [f.name, registry.resource(f.target).identifier]),
  );
  const stamped = stored.filter((f) => (f.kind === 'scalar' ? f.timestamp : f.blame) !== undefined);

  return {
    table: resource.table,
    identifier: resource.identifier,
    columns: ['id', ...stored.map((f) => f.column), ...(tokensValidAfter ? [tokensValidAfter] : [])],
    tokensValidAfter,
    toMany,
    toEntity(row) {
      const entity: Entity = { id: readItemId(resource.identifier, row.id) };
      for (const field of stored) {
        const value = row[field.column];
        entity[field.name] =
          field.kind === 'scalar'
            ? dialect.fromDb(field.type, value)
            : value === null || value === undefined
              ? null
              : readItemId(targetIdentifier.get(field.name)!, value);
      }
      if (tokensValidAfter) attachTokensValidAfter(entity, row[tokensValidAfter]);
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
    stampRow(row, stamp) {
      for (const field of stamped) {
        const when = field.kind === 'scalar' ? field.timestamp : field.blame;
        if (when === 'create' && !stamp.creating) delete row[field.column];
        else row[field.column] = field.kind === 'scalar' ? dialect.toDb(field.type, stamp.at) : stamp.by;
      }
    },
  };
}
