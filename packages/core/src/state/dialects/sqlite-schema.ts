/**
 * SQLite: dates, date-times and JSON in text columns (see `sqlite.ts` for how they are stored); indexes and foreign
 * keys read with the `pragma_index_list`, `pragma_index_info` and `pragma_foreign_key_list` table functions.
 */
import type { SchemaDialect } from './schema-dialect.js';
import { plainIdentifier, sharedColumnType } from './schema-dialect.js';

export const sqliteSchema: SchemaDialect = {
  columnType: sharedColumnType,
  rebuildsTableToAlter: true,
  async readIndexes(knex, table) {
    const indexes = (await knex.raw('select name, "unique" from pragma_index_list(?)', [table])) as { name: string; unique: number }[];
    const result = [];
    for (const index of indexes) {
      const columns = (await knex.raw('select name from pragma_index_info(?) order by seqno', [index.name])) as { name: string }[];
      result.push({ name: index.name, columns: columns.map((c) => c.name), unique: index.unique === 1 });
    }
    return result;
  },
  async readForeignKeys(knex, table) {
    const keys = (await knex.raw('select "from", "table" from pragma_foreign_key_list(?)', [table])) as { from: string; table: string }[];
    return keys.map((key) => ({ column: key.from, table: key.table }));
  },
  async readSubstringIndexes(knex, table) {
    const rows = (await knex.raw(`select name, sql from sqlite_master where type = 'table' and sql like 'CREATE VIRTUAL TABLE%'`)) as { name: string; sql: string }[];
    return rows.filter((row) => row.sql.includes(`content='${table}'`)).map((row) => row.name);
  },
  /**
   * An external-content FTS5 table with the trigram tokenizer (case-insensitive): it indexes the column without a copy
   * of the text, filled from the rows there ('rebuild') and kept in step by three triggers. Queried with
   * `id IN (SELECT rowid FROM <index> WHERE <column> LIKE '%value%')` (see the dialect's `substringPrefilter`).
   */
  substringIndexStatements(table, index) {
    const [fts, t, c] = [plainIdentifier(index.name), plainIdentifier(table), plainIdentifier(index.column)];
    const add = `insert into "${fts}"(rowid, "${c}") values (new.id, new."${c}");`;
    const remove = `insert into "${fts}"("${fts}", rowid, "${c}") values ('delete', old.id, old."${c}");`;
    return {
      up: [
        { sql: `create virtual table "${fts}" using fts5("${c}", content='${t}', content_rowid='id', tokenize='trigram')`, bindings: [] },
        { sql: `insert into "${fts}"("${fts}") values ('rebuild')`, bindings: [] },
        { sql: `create trigger "${fts}_insert" after insert on "${t}" begin ${add} end`, bindings: [] },
        { sql: `create trigger "${fts}_delete" after delete on "${t}" begin ${remove} end`, bindings: [] },
        { sql: `create trigger "${fts}_update" after update of "${c}" on "${t}" begin ${remove} ${add} end`, bindings: [] },
      ],
      down: ['insert', 'delete', 'update'].map((event) => ({ sql: `drop trigger if exists "${fts}_${event}"`, bindings: [] })).concat([{ sql: `drop table if exists "${fts}"`, bindings: [] }]),
    };
  },
};
