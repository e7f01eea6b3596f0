/**
 * PostgreSQL: `timestamptz`, `date` and `jsonb` columns; indexes and foreign keys read from the catalog, in the
 * current schema (the first of the search path, where the tables are made).
 */
import type { SchemaDialect } from './schema-dialect.js';
import { assertPlainIdentifier, toColumnTypeCall } from './schema-dialect.js';

// An index on expressions (`lower(email)`) has no column for them (attnum 0): a left join keeps it, with the columns it
// has.
const INDEXES = `
  select i.relname as name, ix.indisunique as "unique", array_remove(array_agg(a.attname::text order by k.ord), null) as columns
  from pg_index ix
  join pg_class t on t.oid = ix.indrelid
  join pg_namespace n on n.oid = t.relnamespace
  join pg_class i on i.oid = ix.indexrelid
  join pg_am am on am.oid = i.relam
  cross join lateral unnest(ix.indkey) with ordinality as k(attnum, ord)
  left join pg_attribute a on a.attrelid = t.oid and a.attnum = k.attnum
  where t.relname = ? and n.nspname = current_schema() and am.amname = 'btree'
  group by i.relname, ix.indisunique`;

/** GIN indexes on the table (trigram indexes are the only ones made here). */
const GIN_INDEXES = `
  select i.relname as name
  from pg_index ix
  join pg_class t on t.oid = ix.indrelid
  join pg_namespace n on n.oid = t.relnamespace
  join pg_class i on i.oid = ix.indexrelid
  join pg_am am on am.oid = i.relam
  where t.relname = ? and n.nspname = current_schema() and am.amname = 'gin'`;

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
      case 'file':
        return { method: 'jsonb' };
      default:
        return toColumnTypeCall(type);
    }
  },
  rebuildsTableToAlter: false,
  async readIndexes(knex, table) {
    const { rows } = (await knex.raw(INDEXES, [table])) as {
      rows: { name: string; unique: boolean; columns: string[] }[];
    };
    return rows.map((row) => ({ name: row.name, columns: row.columns, unique: row.unique }));
  },
  async readForeignKeys(knex, table) {
    const { rows } = (await knex.raw(FOREIGN_KEYS, [table])) as { rows: { column: string; table: string }[] };
    return rows;
  },
  async readSubstringIndexes(knex, table) {
    const { rows } = (await knex.raw(GIN_INDEXES, [table])) as { rows: { name: string }[] };
    return rows.map((row) => row.name);
  },
  /** pg_trgm's GIN index: LIKE and ILIKE with a substring of 3 characters or more use it as they are. */
  substringIndexStatements(table, index) {
    const [name, t, c] = [
      assertPlainIdentifier(index.name),
      assertPlainIdentifier(table),
      assertPlainIdentifier(index.column),
    ];
    return {
      up: [
        // Once per database, in `public` when it is not installed yet (so dropping an app's schema keeps it); it needs
        // the right to create an extension (a superuser, or the database owner for trusted extensions, PostgreSQL 13+).
        { sql: 'create extension if not exists pg_trgm schema public', bindings: [] },
        // Wherever the extension lives, its operator class is named with its schema: the search path need not hold it.
        {
          sql: `do $$ declare s text; begin
  select n.nspname into s from pg_extension e join pg_namespace n on n.oid = e.extnamespace where e.extname = 'pg_trgm';
  execute format('create index %I on %I using gin (%I %I.gin_trgm_ops)', '${name}', '${t}', '${c}', s);
end $$`,
          bindings: [],
        },
      ],
      down: [{ sql: 'drop index if exists ??', bindings: [index.name] }],
    };
  },
};
