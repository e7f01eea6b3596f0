/**
 * SQLite: dates, date-times and JSON in text columns (see `sqlite.ts` for how they are stored); indexes and foreign
 * keys read with the `pragma_index_list`, `pragma_index_info` and `pragma_foreign_key_list` table functions.
 */
import type { SchemaDialect } from './schema-dialect.js';
import { sharedColumnType } from './schema-dialect.js';

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
};
