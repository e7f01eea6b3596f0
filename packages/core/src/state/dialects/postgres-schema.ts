/**
 * PostgreSQL: `timestamptz`, `date` and `jsonb` columns; indexes and foreign keys read from the catalog, in the
 * current schema (the first of the search path, where the tables are made).
 */
import type { SchemaDialect } from './schema-dialect.js';
import { sharedColumnType } from './schema-dialect.js';

const INDEXES = `
  select i.relname as name, ix.indisunique as "unique", array_agg(a.attname::text order by k.ord) as columns
  from pg_index ix
  join pg_class t on t.oid = ix.indrelid
  join pg_namespace n on n.oid = t.relnamespace
  join pg_class i on i.oid = ix.indexrelid
  cross join lateral unnest(ix.indkey) with ordinality as k(attnum, ord)
  join pg_attribute a on a.attrelid = t.oid and a.attnum = k.attnum
  where t.relname = ? and n.nspname = current_schema()
  group by i.relname, ix.indisunique`;

const FOREIGN_KEYS = `
  select a.attname as column, ft.relname as "table"
  from pg_constraint c
  join pg_class t on t.oid = c.conrelid
  join pg_namespace n on n.oid = t.relnamespace
  join pg_class ft on ft.oid = c.confrelid
  join pg_attribute a on a.attrelid = t.oid and a.attnum = c.conkey[1]
  where c.contype = 'f' and t.relname = ? and n.nspname = current_schema() and array_length(c.conkey, 1) = 1`;

export const postgresSchema: SchemaDialect = {
  columnType(type) {
    switch (type) {
      case 'datetime':
        return { method: 'timestamp', options: { useTz: true } };
      case 'date':
        return { method: 'date' };
      case 'json':
      case 'string[]':
        return { method: 'jsonb' };
      default:
        return sharedColumnType(type);
    }
  },
  rebuildsTableToAlter: false,
  async readIndexes(knex, table) {
    const { rows } = (await knex.raw(INDEXES, [table])) as { rows: { name: string; unique: boolean; columns: string[] }[] };
    return rows.map((row) => ({ name: row.name, columns: row.columns, unique: row.unique }));
  },
  async readForeignKeys(knex, table) {
    const { rows } = (await knex.raw(FOREIGN_KEYS, [table])) as { rows: { column: string; table: string }[] };
    return rows;
  },
};
