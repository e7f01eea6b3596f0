/**
 * The changes that bring the database up to the desired schema, in an order that can run as listed: tables first,
 * then (PostgreSQL) the foreign keys between the new tables, so relations may point in any direction, cycles
 * included; then columns added to existing tables, foreign keys missing on existing columns, and missing indexes.
 *
 * Only additions: nothing is dropped or retyped. A column the declarations no longer have is left in place and
 * reported in `notes`; a required field added to an existing table gets a nullable column (its rows have no value).
 */
import { DeclarationError } from '../../errors.js';
import type { MetadataRegistry } from '../../metadata/types.js';
import type { Database } from '../database.js';
import type { Dialect } from '../dialects/dialect.js';
import {
  buildDesiredSchema,
  type ColumnSpec,
  type ForeignKeySpec,
  type IndexSpec,
  type SchemaSpec,
  type SubstringIndexSpec,
  type TableSpec,
} from './desired-schema.js';
import { type LiveSchema, type LiveTable, readLiveSchema } from './live-schema.js';

export type SchemaChange =
  /** A new table, with its indexes, and its foreign keys where the dialect declares them inline. */
  | { readonly kind: 'createTable'; readonly table: TableSpec }
  /** A foreign key of a table just created (PostgreSQL), or one missing on an existing column (`existingColumn`). */
  | {
      readonly kind: 'addForeignKey';
      readonly table: string;
      readonly foreignKey: ForeignKeySpec;
      readonly existingColumn: boolean;
    }
  /** A column added to an existing table, always nullable, with its foreign key for a relation. */
  | {
      readonly kind: 'addColumn';
      readonly table: string;
      readonly column: ColumnSpec;
      readonly declaredRequired: boolean;
      readonly foreignKey: ForeignKeySpec | undefined;
    }
  | { readonly kind: 'createIndex'; readonly table: string; readonly index: IndexSpec }
  /** A trigram index (filled from the rows already there). */
  | { readonly kind: 'createSubstringIndex'; readonly table: string; readonly index: SubstringIndexSpec };

export interface SchemaDiff {
  readonly changes: readonly SchemaChange[];
  /** What differs but is left alone (columns no longer declared), one sentence each. */
  readonly notes: readonly string[];
}

const sameColumns = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((column, i) => column === b[i]);

/**
 * An index is there when one on the same columns exists, unique if uniqueness is wanted, whatever its name. One on
 * `lower(column)` (the databases list expressions differently, or not at all) is found by its name.
 */
const hasIndex = (live: LiveTable, index: IndexSpec) =>
  index.lowerCase?.length || index.liveOnly !== undefined
    ? live.indexes.some((l) => l.name === index.name)
    : live.indexes.some((l) => sameColumns(l.columns, index.columns) && (l.unique || !index.unique));
const hasForeignKey = (live: LiveTable, key: ForeignKeySpec) =>
  live.foreignKeys.some((l) => l.column === key.column && l.table === key.table);

/**
 * Whether a column the database lists holds UUIDs (PostgreSQL's `uuid`, SQLite's `char(36)`) or integers; else neither.
 */
const idKindOf = (liveType: string): 'uuid' | 'integer' | undefined =>
  /uuid|char/i.test(liveType) ? 'uuid' : /int/i.test(liveType) ? 'integer' : undefined;

/**
 * A column of ids (the primary key, a relation's) must hold the kind of ids declared: a resource switched between
 * integer and UUID ids over an existing table is refused here, as ids are never converted in place.
 */
function assertSameIdType(table: string, column: ColumnSpec, liveType: string): void {
  const wanted =
    column.type === 'uuid'
      ? 'uuid'
      : column.type === 'increments' || column.type === 'reference'
        ? 'integer'
        : undefined;
  const live = idKindOf(liveType);
  if (wanted === undefined || live === undefined || wanted === live) return;
  throw new DeclarationError(
    `Column ${table}.${column.name} holds ${live === 'uuid' ? 'UUIDs' : 'integers'} (${liveType}), but the declarations want ${wanted === 'uuid' ? 'UUIDs' : 'integers'}: ids are never converted in place. Convert the table in a migration of your own, or keep the resource's "id" as it was.`,
  );
}

/** Compares the desired schema with the live one; pure. */
export function diffSchema(
  desired: SchemaSpec,
  live: LiveSchema,
  dialect: Pick<Dialect, 'inlineForeignKeys'>,
): SchemaDiff {
  const created: SchemaChange[] = [];
  const createdKeys: SchemaChange[] = [];
  const columns: SchemaChange[] = [];
  const keys: SchemaChange[] = [];
  const indexes: SchemaChange[] = [];
  const notes: string[] = [];
  for (const table of desired.tables) {
    const existing = live.tables.get(table.name);
    if (!existing) {
      created.push({ kind: 'createTable', table: dialect.inlineForeignKeys ? table : { ...table, foreignKeys: [] } });
      for (const index of table.substringIndexes)
        indexes.push({ kind: 'createSubstringIndex', table: table.name, index });
      if (!dialect.inlineForeignKeys) {
        for (const foreignKey of table.foreignKeys)
          createdKeys.push({ kind: 'addForeignKey', table: table.name, foreignKey, existingColumn: false });
      }
      continue;
    }
    for (const column of table.columns) {
      const live = existing.columns.get(column.name);
      if (live) {
        assertSameIdType(table.name, column, live.type);
        continue;
      }
      const foreignKey = table.foreignKeys.find((k) => k.column === column.name);
      // The table has rows, which have no value for the new column yet.
      columns.push({
        kind: 'addColumn',
        table: table.name,
        column: { ...column, nullable: true },
        declaredRequired: !column.nullable,
        foreignKey,
      });
    }
    for (const foreignKey of table.foreignKeys) {
      if (existing.columns.has(foreignKey.column) && !hasForeignKey(existing, foreignKey))
        keys.push({ kind: 'addForeignKey', table: table.name, foreignKey, existingColumn: true });
    }
    for (const index of table.indexes)
      if (!hasIndex(existing, index)) indexes.push({ kind: 'createIndex', table: table.name, index });
    for (const index of table.substringIndexes) {
      if (!existing.substringIndexes.includes(index.name))
        indexes.push({ kind: 'createSubstringIndex', table: table.name, index });
    }
    for (const column of existing.columns.keys()) {
      if (!table.columns.some((c) => c.name === column))
        notes.push(
          `Column ${table.name}.${column} is not declared: it is kept (drop it in a migration of your own if you mean to).`,
        );
    }
  }
  return { changes: [...created, ...createdKeys, ...columns, ...keys, ...indexes], notes };
}

/** Reads the database and compares it with the metadata. */
export async function diffDatabase(database: Database, registry: MetadataRegistry): Promise<SchemaDiff> {
  const desired = buildDesiredSchema(registry);
  const live = await readLiveSchema(
    database,
    desired.tables.map((t) => t.name),
  );
  return diffSchema(desired, live, database.dialect);
}

/**
 * Changes without which the API cannot work at all: missing tables and columns, and trigram indexes (SQLite's
 * searches read the FTS5 table); other indexes and keys only protect it or speed it up.
 */
export const isBlocking = (change: SchemaChange): boolean =>
  change.kind === 'createTable' || change.kind === 'addColumn' || change.kind === 'createSubstringIndex';

/** One line per change, for messages and the head of a migration file: `create table book`, `add column book.isbn`. */
export function describeChange(change: SchemaChange): string {
  switch (change.kind) {
    case 'createTable':
      return `create table ${change.table.name}`;
    case 'addColumn':
      return `add column ${change.table}.${change.column.name}`;
    case 'addForeignKey':
      return `add foreign key ${change.table}.${change.foreignKey.column} → ${change.foreignKey.table}.id`;
    case 'createIndex':
      return `create ${change.index.unique ? 'unique ' : ''}index ${change.index.name} on ${change.table} (${change.index.columns.map((c) => (change.index.lowerCase?.includes(c) ? `lower(${c})` : c)).join(', ')})${change.index.liveOnly ? ` where ${change.index.liveOnly} is null` : ''}`;
    case 'createSubstringIndex':
      return `create trigram index ${change.index.name} on ${change.table} (${change.index.column})`;
  }
}
