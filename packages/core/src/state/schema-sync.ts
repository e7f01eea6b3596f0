/**
 * Development schema sync: creates the tables, columns, foreign keys and indexes the metadata describes, and adds
 * columns that are missing from existing tables. It never drops or alters what exists (that is a migration's job).
 */
import type { Knex } from 'knex';
import type { FieldMetadata, MetadataRegistry, ResourceMetadata, ScalarFieldMetadata, ToOneFieldMetadata } from '../metadata/types.js';
import { resolvePath } from '../metadata/property-path.js';
import { uniqueFieldSets } from '../validation/constraints.js';
import type { Database } from './database.js';

function addScalarColumn(table: Knex.CreateTableBuilder, field: ScalarFieldMetadata, database: Database): Knex.ColumnBuilder {
  const postgres = database.dialect.name === 'postgres';
  switch (field.type) {
    case 'integer':
      return table.integer(field.column);
    case 'float':
      return table.double(field.column);
    case 'boolean':
      return table.boolean(field.column);
    case 'datetime':
      return postgres ? table.timestamp(field.column, { useTz: true }) : table.text(field.column);
    case 'date':
      return postgres ? table.date(field.column) : table.text(field.column);
    case 'json':
    case 'string[]':
      return postgres ? table.jsonb(field.column) : table.text(field.column);
    default:
      return table.text(field.column);
  }
}

function addColumn(table: Knex.CreateTableBuilder, field: FieldMetadata, database: Database, options: { strict: boolean; registry: MetadataRegistry }): void {
  if (field.kind === 'toMany') return;
  const column = field.kind === 'scalar' ? addScalarColumn(table, field, database) : table.integer(field.column);
  // Columns added to an existing table stay nullable: its rows have no value for them yet.
  if (!field.nullable && options.strict) column.notNullable();
  else column.nullable();
  if (field.kind === 'toOne') {
    table.index([field.column]);
    if (database.dialect.inlineForeignKeys && options.strict) addForeignKey(table, field, options.registry);
  }
}

function addForeignKey(table: Knex.CreateTableBuilder, field: ToOneFieldMetadata, registry: MetadataRegistry): void {
  const target = registry.resource(field.target);
  // Items served by their own provider and processor live elsewhere: nothing to reference.
  if (target.provider && target.processor) return;
  const foreign = table.foreign(field.column).references('id').inTable(target.table);
  // "restrict" is the databases' default (NO ACTION), which both report as a plain foreign key violation.
  if (field.onDelete !== 'restrict') foreign.onDelete(field.onDelete.toUpperCase());
}

async function createTable(database: Database, resource: ResourceMetadata, registry: MetadataRegistry): Promise<void> {
  await database.knex.schema.createTable(resource.table, (table) => {
    table.increments('id').primary();
    for (const field of resource.fields) addColumn(table, field, database, { strict: true, registry });
  });
}

/** Brings the database up to the metadata: missing tables and columns are created. */
export async function syncSchema(database: Database, registry: MetadataRegistry): Promise<void> {
  // `knex.schema` is a getter that returns a fresh builder each time: never keep one.
  const schema = () => database.knex.schema;
  const created: ResourceMetadata[] = [];
  for (const resource of registry.resources) {
    // A resource that reads and writes through its own provider and processor has no table.
    if (resource.provider && resource.processor) continue;
    if (!(await schema().hasTable(resource.table))) {
      await createTable(database, resource, registry);
      created.push(resource);
      continue;
    }
    for (const field of resource.fields) {
      if (field.kind === 'toMany' || (await schema().hasColumn(resource.table, field.column))) continue;
      await schema().alterTable(resource.table, (table) => {
        addColumn(table, field, database, { strict: false, registry });
        // PostgreSQL can add the foreign key of a new relation column; SQLite cannot alter constraints in place.
        if (field.kind === 'toOne' && !database.dialect.inlineForeignKeys) addForeignKey(table, field, registry);
      });
    }
  }
  if (!database.dialect.inlineForeignKeys) {
    // PostgreSQL: foreign keys once every table exists, so relations may point in any direction (cycles included).
    for (const resource of created) {
      const relations = resource.fields.filter((f): f is ToOneFieldMetadata => f.kind === 'toOne');
      if (relations.length === 0) continue;
      await schema().alterTable(resource.table, (table) => {
        for (const field of relations) addForeignKey(table, field, registry);
      });
    }
  }
  await createJoinTables(database, registry);
  await createFilterIndexes(database, registry);
  await createUniqueIndexes(database, registry);
}

/** The name of the unique index backing a Unique constraint: `<table>_<columns>_unique`. */
export const uniqueIndexName = (table: string, columns: readonly string[]): string => `${table}_${columns.join('_')}_unique`;

/**
 * Unique indexes for Unique constraints: the database is the backstop when two requests race past the check. An
 * index that cannot be created (rows already break it) is reported and skipped: the constraint still checks writes.
 */
async function createUniqueIndexes(database: Database, registry: MetadataRegistry): Promise<void> {
  for (const resource of registry.resources) {
    if (resource.provider && resource.processor) continue;
    for (const names of uniqueFieldSets(resource)) {
      const columns = names.map((name) => (resource.fields.find((f) => f.name === name) as ScalarFieldMetadata | ToOneFieldMetadata).column);
      try {
        await database.knex.raw(`CREATE UNIQUE INDEX IF NOT EXISTS ?? ON ?? (${columns.map(() => '??').join(', ')})`, [uniqueIndexName(resource.table, columns), resource.table, ...columns]);
      } catch (error) {
        if (!database.dialect.isUniqueViolation(error) && !/unique|duplicate/i.test(String((error as Error).message))) throw error;
        process.emitWarning(`resource-api: no unique index on ${resource.table}(${columns.join(', ')}): existing rows hold duplicates.`);
      }
    }
  }
}

/** The join table of each many-to-many, on its owning side: both ids, deleted with either item. */
async function createJoinTables(database: Database, registry: MetadataRegistry): Promise<void> {
  for (const resource of registry.resources) {
    for (const field of resource.fields) {
      if (field.kind !== 'toMany' || !field.joinTable || field.mappedBy !== undefined) continue;
      const join = field.joinTable;
      if (await database.knex.schema.hasTable(join.table)) continue;
      const target = registry.resource(field.target);
      await database.knex.schema.createTable(join.table, (table) => {
        table.integer(join.ownColumn).notNullable().references('id').inTable(resource.table).onDelete('CASCADE');
        table.integer(join.targetColumn).notNullable().references('id').inTable(target.table).onDelete('CASCADE');
        table.primary([join.ownColumn, join.targetColumn]);
        table.index([join.targetColumn]);
      });
    }
  }
}

/** Indexes for the columns that equality, range and order filters use, on whichever table the path ends in. */
async function createFilterIndexes(database: Database, registry: MetadataRegistry): Promise<void> {
  const wanted = new Map<string, { table: string; column: string }>();
  for (const resource of registry.resources) {
    for (const filter of resource.filters) {
      for (const path of filter.indexedPaths ?? []) {
        const resolved = resolvePath(path, resource.name, (name) => registry.resource(name).fields, `Resource "${resource.name}"`);
        const table = registry.resource(resolved.owner).table;
        if (resolved.leaf.column === 'id') continue;
        wanted.set(`${table}.${resolved.leaf.column}`, { table, column: resolved.leaf.column });
      }
    }
  }
  for (const { table, column } of wanted.values()) {
    // knex's own naming, so an index knex made for a foreign key is recognized and not doubled.
    await database.knex.raw('CREATE INDEX IF NOT EXISTS ?? ON ?? (??)', [`${table}_${column}_index`, table, column]);
  }
}
