/**
 * SQLite: dates, date-times and JSON in text columns (see `sqlite.ts` for how they are stored); indexes and foreign
 * keys read with the `pragma_index_list`, `pragma_index_info` and `pragma_foreign_key_list` table functions.
 */
import type { SchemaDialect } from './schema-dialect.js';
import { assertPlainIdentifier, toColumnTypeCall } from './schema-dialect.js';

export const sqliteSchema: SchemaDialect = {
  columnType: toColumnTypeCall,
  rebuildsTableToAlter: true,
  async readIndexes(knex, table) {
    const indexes = (await knex.raw('select name, "unique" from pragma_index_list(?)', [table])) as {
      name: string;
      unique: number;
    }[];
    const result = [];
    for (const index of indexes) {
      const columns = (await knex.raw('select name from pragma_index_info(?) order by seqno', [index.name])) as {
        name: string;
      }[];
      result.push({ name: index.name, columns: columns.map((c) => c.name), unique: index.unique === 1 });
    }
    return result;
  },
  async readForeignKeys(knex, table) {
    const keys = (await knex.raw('select "from", "table" from pragma_foreign_key_list(?)', [table])) as {
      from: string;
      table: string;
    }[];
    return keys.map((key) => ({ column: key.from, table: key.table }));
  },
  async readSubstringIndexes(knex, table) {
    // An index is its FTS5 table and the insert trigger on `table` that fills it (named `<index>_insert`).
    const rows = (await knex.raw(
      `select v.name from sqlite_master v join sqlite_master t on t.type = 'trigger' and t.name = v.name || '_insert' and t.tbl_name = ? where v.type = 'table' and v.sql like 'CREATE VIRTUAL TABLE%'`,
      [table],
    )) as { name: string }[];
    return rows.map((row) => row.name);
  },
  /**
   * A contentless FTS5 table of the column's text in lower case (SQLite's `lower()`: A-Z only), with the trigram
   * tokenizer matching case as it is: a phrase query for the value lowered the same way finds exactly the rows whose
   * text holds it ignoring ASCII case, which is what `LIKE '%value%'` finds. So a case-insensitive substring search
   * reads the index alone, and a count of it needs no row of the table (see the dialect's `substringCondition`). It
   * stores no copy of the text; three triggers keep it in step (a contentless table deletes by the indexed value).
   */
  substringIndexStatements(table, index) {
    const [fts, t, c] = [
      assertPlainIdentifier(index.name),
      assertPlainIdentifier(table),
      assertPlainIdentifier(index.column),
    ];
    const add = `insert into "${fts}"(rowid, "${c}") select new.id, lower(new."${c}") where new."${c}" is not null;`;
    const remove = `insert into "${fts}"("${fts}", rowid, "${c}") select 'delete', old.id, lower(old."${c}") where old."${c}" is not null;`;
    return {
      up: [
        {
          sql: `create virtual table "${fts}" using fts5("${c}", content='', columnsize=0, tokenize='trigram case_sensitive 1')`,
          bindings: [],
        },
        {
          sql: `insert into "${fts}"(rowid, "${c}") select id, lower("${c}") from "${t}" where "${c}" is not null`,
          bindings: [],
        },
        // The fill writes the index in several segments, and a search looks each of its trigrams up in every one:
        // merged into one, a search of a common word reads far fewer pages (docs/performance.md).
        { sql: `insert into "${fts}"("${fts}") values ('optimize')`, bindings: [] },
        { sql: `create trigger "${fts}_insert" after insert on "${t}" begin ${add} end`, bindings: [] },
        { sql: `create trigger "${fts}_delete" after delete on "${t}" begin ${remove} end`, bindings: [] },
        {
          sql: `create trigger "${fts}_update" after update of "${c}" on "${t}" begin ${remove} ${add} end`,
          bindings: [],
        },
      ],
      down: ['insert', 'delete', 'update']
        .map((event) => ({ sql: `drop trigger if exists "${fts}_${event}"`, bindings: [] }))
        .concat([{ sql: `drop table if exists "${fts}"`, bindings: [] }]),
    };
  },
};
