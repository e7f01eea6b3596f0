/**
 * What the database holds now, for the tables the metadata names: their columns (knex's `columnInfo`), indexes and
 * foreign keys (through the dialect, which knows where each database lists them). Tables not asked for are not read.
 */
import type { Database } from '../database.js';
import type { LiveForeignKey, LiveIndex } from '../dialects/schema-dialect.js';
import { schemaDialects } from '../dialects/schema-dialects.js';

export interface LiveTable {
  /** Column name → whether it accepts NULL, and its type as the database names it (`integer`, `uuid`, `char`, …). */
  readonly columns: ReadonlyMap<string, { readonly nullable: boolean; readonly type: string }>;
  readonly indexes: readonly LiveIndex[];
  readonly foreignKeys: readonly LiveForeignKey[];
  /** The names of its trigram (substring) indexes. */
  readonly substringIndexes: readonly string[];
}

export interface LiveSchema {
  /** The asked-for tables that exist. */
  readonly tables: ReadonlyMap<string, LiveTable>;
}

export async function readLiveSchema(database: Database, tableNames: readonly string[]): Promise<LiveSchema> {
  const { knex } = database;
  const dialect = schemaDialects[database.dialect.name];
  const tables = new Map<string, LiveTable>();
  for (const name of tableNames) {
    // `knex.schema` is a getter that returns a fresh builder each time: never keep one.
    if (!(await knex.schema.hasTable(name))) continue;
    const info = await knex(name).columnInfo();
    const columns = new Map(
      Object.entries(info).map(([column, details]) => [column, { nullable: details.nullable, type: details.type }]),
    );
    tables.set(name, {
      columns,
      indexes: await dialect.readIndexes(knex, name),
      foreignKeys: await dialect.readForeignKeys(knex, name),
      substringIndexes: await dialect.readSubstringIndexes(knex, name),
    });
  }
  return { tables };
}
