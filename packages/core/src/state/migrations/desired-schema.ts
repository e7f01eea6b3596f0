/**
 * The one description of the schema the metadata needs: tables, columns, foreign keys and indexes, in plain frozen
 * values that know no database. Schema sync and the migration writer both start from it (through `diff-schema.ts`).
 *
 * - a table per resource stored by the built-in persistence: `id` (auto-increment), a column per scalar field, an
 *   integer column per to-one relation with its foreign key (when the target has a table) and an index;
 * - a join table per many-to-many, on its owning side: both ids, the pair as primary key, deleted with either item;
 * - a unique index per `Unique` constraint (the database is the backstop when two requests race past the check), on
 *   `lower(column)` for the text columns of a case-insensitive one;
 * - an index per column that equality, range and order filters use, on whichever table the filter's path ends in;
 * - a trigram (substring) index per text column a search filter declares `substringIndex` on;
 * - on a resource holding a password, the framework's "tokens valid after" and "provisioned at" columns
 *   (`credentials-stamp.ts`), and once
 *   for them all the framework's refresh token table (`refresh-token-table.ts`).
 */
import type {
  Filter,
  IdentifierMetadata,
  MetadataRegistry,
  ResourceMetadata,
  ScalarFieldMetadata,
  ToOneFieldMetadata,
} from '../../metadata/types.js';
import { resolvePath } from '../../metadata/property-path.js';
import { buildLowerUniqueIndexName, collectUniqueConstraints, toLiveUniqueIndexName } from '../../validation/unique.js';
import type { ColumnType } from '../dialects/schema-dialect.js';
import { holdsCredentials, PROVISIONED_AT_COLUMN, TOKENS_VALID_AFTER_COLUMN } from '../credentials-stamp.js';
import { REFRESH_TOKEN_COLUMNS, REFRESH_TOKEN_TABLE } from '../refresh-token-table.js';

export interface ColumnSpec {
  readonly name: string;
  /** `increments` for the auto-increment primary key `id`. */
  readonly type: ColumnType | 'increments';
  readonly nullable: boolean;
  /** The primary key `id` of UUIDs (`increments` is one by itself). */
  readonly primary?: boolean;
  /**
   * A UUID made by the column's default (`knex.fn.uuid()`: PostgreSQL's `gen_random_uuid()`), when the database makes
   * ids.
   */
  readonly generatedUuid?: boolean;
}

export interface ForeignKeySpec {
  readonly column: string;
  /** The referenced table; the referenced column is always `id`. */
  readonly table: string;
  /** What deleting the referenced row does; undefined: the databases' default (NO ACTION), refused while referenced. */
  readonly onDelete: 'CASCADE' | 'SET NULL' | undefined;
}

export interface IndexSpec {
  readonly name: string;
  readonly columns: readonly string[];
  readonly unique: boolean;
  /**
   * The columns indexed in lower case, `lower(column)` (a case-insensitive Unique): the index is then one on
   * expressions, found by its name. Undefined or empty: a plain index.
   */
  readonly lowerCase?: readonly string[];
  /**
   * A partial unique index, on the live items of a soft-deleted resource only: the column that is null on them
   * (`where deleted_at is null`), so a deleted item's values may be used again. Found by its name, as `lowerCase`.
   */
  readonly liveOnly?: string;
}

/**
 * A trigram index on a text column, for substring searches: an FTS5 trigram table (SQLite), a pg_trgm GIN index
 * (PostgreSQL).
 */
export interface SubstringIndexSpec {
  readonly name: string;
  readonly column: string;
}

export interface TableSpec {
  readonly name: string;
  readonly columns: readonly ColumnSpec[];
  /** A composite primary key (join tables); undefined when `id` is the key. */
  readonly primaryKey: readonly string[] | undefined;
  readonly foreignKeys: readonly ForeignKeySpec[];
  readonly indexes: readonly IndexSpec[];
  readonly substringIndexes: readonly SubstringIndexSpec[];
}

export interface SchemaSpec {
  /** Resource tables in declaration order, then join tables. */
  readonly tables: readonly TableSpec[];
}

/** The name of the unique index backing a Unique constraint: `<table>_<columns>_unique`. */
export const buildUniqueIndexName = (table: string, columns: readonly string[]): string =>
  `${table}_${columns.join('_')}_unique`;
/** knex's own naming, so an index made by an earlier version (or by knex for a foreign key) keeps its name. */
export const buildIndexName = (table: string, columns: readonly string[]): string =>
  `${table}_${columns.join('_')}_index`;
/**
 * The trigram index of a column: `<table>_<column>_substring` (the FTS5 table on SQLite, the GIN index on PostgreSQL).
 * Not `_trigram`: FTS5 tables of that name indexed the text as it is, case folded by the tokenizer, which a search
 * could not read alone; a database that has one gets the new index next to it.
 */
export const buildSubstringIndexName = (table: string, column: string): string => `${table}_${column}_substring`;

/** A resource reading and writing through its own provider and processor has no table. */
export const hasTable = (resource: ResourceMetadata): boolean => resource.stored;

interface TableDraft {
  name: string;
  columns: ColumnSpec[];
  primaryKey: string[] | undefined;
  foreignKeys: ForeignKeySpec[];
  /** Keyed by the column list: one index per list, a unique one winning over a plain one. */
  indexes: Map<string, IndexSpec>;
  substringIndexes: Map<string, SubstringIndexSpec>;
}

function addIndex(
  table: TableDraft,
  columns: readonly string[],
  unique: boolean,
  lowerCase: readonly string[] = [],
  liveOnly?: string,
): void {
  const key = columns.join('\u0000');
  const existing = table.indexes.get(key);
  // A unique index wins over a plain one, and a case-insensitive unique one (stricter) over a plain unique one.
  if (existing?.unique && (!unique || (existing.lowerCase?.length ?? 0) >= lowerCase.length)) return;
  if (unique && liveOnly) {
    const name =
      lowerCase.length > 0 ? buildLowerUniqueIndexName(table.name, columns) : buildUniqueIndexName(table.name, columns);
    table.indexes.set(key, { name: toLiveUniqueIndexName(name), columns, unique, lowerCase, liveOnly });
  } else if (lowerCase.length > 0)
    table.indexes.set(key, { name: buildLowerUniqueIndexName(table.name, columns), columns, unique: true, lowerCase });
  else
    table.indexes.set(key, {
      name: unique ? buildUniqueIndexName(table.name, columns) : buildIndexName(table.name, columns),
      columns,
      unique,
    });
}

function foreignKey(field: ToOneFieldMetadata, registry: MetadataRegistry): ForeignKeySpec | undefined {
  const target = registry.resource(field.target);
  // Items served by their own provider and processor live elsewhere: nothing to reference.
  if (!hasTable(target)) return undefined;
  // "restrict" is the databases' default (NO ACTION), which both report as a plain foreign key violation.
  const onDelete = field.onDelete === 'cascade' ? 'CASCADE' : field.onDelete === 'set null' ? 'SET NULL' : undefined;
  return { column: field.column, table: target.table, onDelete };
}

/** The primary key `id`: auto-increment integers, or UUIDs (made by the framework, or by the column's default). */
const idColumn = (identifier: IdentifierMetadata): ColumnSpec =>
  identifier.type === 'integer'
    ? { name: 'id', type: 'increments', nullable: false }
    : {
        name: 'id',
        type: 'uuid',
        nullable: false,
        primary: true,
        ...(identifier.generatedBy === 'database' ? { generatedUuid: true } : {}),
      };

/** The type of a column holding ids of `target`. */
const referenceType = (target: ResourceMetadata): ColumnType =>
  target.identifier.type === 'uuid' ? 'uuid' : 'reference';

function resourceTable(resource: ResourceMetadata, registry: MetadataRegistry): TableDraft {
  const table: TableDraft = {
    name: resource.table,
    columns: [idColumn(resource.identifier)],
    primaryKey: undefined,
    foreignKeys: [],
    indexes: new Map(),
    substringIndexes: new Map(),
  };
  for (const field of resource.fields) {
    if (field.kind === 'toMany' || (field.kind === 'scalar' && field.computed)) continue;
    table.columns.push({
      name: field.column,
      type: field.kind === 'scalar' ? field.type : referenceType(registry.resource(field.target)),
      nullable: field.nullable,
    });
    if (field.kind !== 'toOne') continue;
    addIndex(table, [field.column], false);
    const key = foreignKey(field, registry);
    if (key) table.foreignKeys.push(key);
  }
  if (holdsCredentials(resource)) {
    table.columns.push(
      { name: TOKENS_VALID_AFTER_COLUMN, type: 'bigint', nullable: true },
      { name: PROVISIONED_AT_COLUMN, type: 'bigint', nullable: true },
    );
  }
  const columnOf = (name: string) =>
    (resource.fieldsByName.get(name) as ScalarFieldMetadata | ToOneFieldMetadata).column;
  for (const { fields, lowerCase } of collectUniqueConstraints(resource))
    addIndex(table, fields.map(columnOf), true, lowerCase.map(columnOf), resource.softDelete?.column);
  return table;
}

function joinTables(registry: MetadataRegistry): TableDraft[] {
  const tables = new Map<string, TableDraft>();
  for (const resource of registry.resources) {
    for (const field of resource.fields) {
      if (
        field.kind !== 'toMany' ||
        !field.joinTable ||
        field.mappedBy !== undefined ||
        tables.has(field.joinTable.table)
      )
        continue;
      const { table: name, ownColumn, targetColumn } = field.joinTable;
      const target = registry.resource(field.target);
      const table: TableDraft = {
        name,
        columns: [
          { name: ownColumn, type: referenceType(resource), nullable: false },
          { name: targetColumn, type: referenceType(target), nullable: false },
        ],
        primaryKey: [ownColumn, targetColumn],
        foreignKeys: [
          { column: ownColumn, table: resource.table, onDelete: 'CASCADE' },
          { column: targetColumn, table: target.table, onDelete: 'CASCADE' },
        ],
        indexes: new Map(),
        substringIndexes: new Map(),
      };
      addIndex(table, [targetColumn], false);
      tables.set(name, table);
    }
  }
  return [...tables.values()];
}

/**
 * The framework's refresh tokens (no foreign key: a user resource may be stored anywhere, and a token outlives nothing
 * it names).
 */
function refreshTokenTable(userIdType: ColumnType): TableDraft {
  const c = REFRESH_TOKEN_COLUMNS;
  const table: TableDraft = {
    name: REFRESH_TOKEN_TABLE,
    columns: [
      { name: 'id', type: 'increments', nullable: false },
      { name: c.hash, type: 'string', nullable: false },
      { name: c.family, type: 'string', nullable: false },
      { name: c.user, type: userIdType, nullable: false },
      { name: c.createdAt, type: 'bigint', nullable: false },
      { name: c.expiresAt, type: 'bigint', nullable: false },
      { name: c.retiredAt, type: 'bigint', nullable: true },
    ],
    primaryKey: undefined,
    foreignKeys: [],
    indexes: new Map(),
    substringIndexes: new Map(),
  };
  addIndex(table, [c.hash], true);
  addIndex(table, [c.family], false);
  addIndex(table, [c.user], false);
  addIndex(table, [c.expiresAt], false);
  return table;
}

/**
 * Calls `add` with the table and column each filter path (as `pathsOf` lists them) ends in, when that table is made
 * here.
 */
function forFilterColumns(
  registry: MetadataRegistry,
  tables: ReadonlyMap<string, TableDraft>,
  pathsOf: (filter: Filter) => readonly string[] | undefined,
  add: (table: TableDraft, column: string) => void,
): void {
  for (const resource of registry.resources) {
    for (const filter of resource.filters) {
      for (const path of pathsOf(filter) ?? []) {
        const resolved = resolvePath(
          path,
          resource.name,
          (name) => registry.resource(name).fields,
          `Resource "${resource.name}"`,
        );
        const table = tables.get(registry.resource(resolved.owner).table);
        if (table) add(table, resolved.leaf.column);
      }
    }
  }
}

/** Indexes for the columns that equality, range and order filters use, on whichever table the path ends in. */
const addFilterIndexes = (registry: MetadataRegistry, tables: ReadonlyMap<string, TableDraft>): void =>
  forFilterColumns(
    registry,
    tables,
    (filter) => filter.indexedPaths,
    (table, column) => {
      if (column !== 'id') addIndex(table, [column], false);
    },
  );

/** Trigram indexes for the text columns that search filters declare `substringIndex` on. */
const addSubstringIndexes = (registry: MetadataRegistry, tables: ReadonlyMap<string, TableDraft>): void =>
  forFilterColumns(
    registry,
    tables,
    (filter) => filter.substringIndexedPaths,
    (table, column) => {
      if (!table.substringIndexes.has(column))
        table.substringIndexes.set(column, { name: buildSubstringIndexName(table.name, column), column });
    },
  );

const freeze = (table: TableDraft): TableSpec =>
  Object.freeze({
    name: table.name,
    columns: Object.freeze(table.columns.map((c) => Object.freeze(c))),
    primaryKey: table.primaryKey && Object.freeze([...table.primaryKey]),
    foreignKeys: Object.freeze(table.foreignKeys.map((k) => Object.freeze(k))),
    indexes: Object.freeze(
      [...table.indexes.values()].map((i) => Object.freeze({ ...i, columns: Object.freeze([...i.columns]) })),
    ),
    substringIndexes: Object.freeze([...table.substringIndexes.values()].map((i) => Object.freeze(i))),
  });

/** The schema the metadata needs. */
export function buildDesiredSchema(registry: MetadataRegistry): SchemaSpec {
  const tables = new Map<string, TableDraft>();
  for (const resource of registry.resources) {
    if (hasTable(resource) && !tables.has(resource.table))
      tables.set(resource.table, resourceTable(resource, registry));
  }
  for (const table of joinTables(registry)) if (!tables.has(table.name)) tables.set(table.name, table);
  const users = registry.resources.filter(holdsCredentials);
  if (users.length > 0 && !tables.has(REFRESH_TOKEN_TABLE)) {
    // The user ids' column: of their type when the resources holding credentials agree on one, else text.
    const types = new Set(users.map(referenceType));
    tables.set(REFRESH_TOKEN_TABLE, refreshTokenTable(types.size === 1 ? [...types][0]! : 'string'));
  }
  addFilterIndexes(registry, tables);
  addSubstringIndexes(registry, tables);
  return Object.freeze({ tables: Object.freeze([...tables.values()].map(freeze)) });
}
