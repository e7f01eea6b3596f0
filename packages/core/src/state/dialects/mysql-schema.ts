/**
 * MariaDB (and MySQL): DATETIME(3), DATE, MEDIUMTEXT for text and LONGTEXT for JSON (see `mysql.ts`), unsigned integer
 * references (the type of an `increments` key, which a foreign key must match); indexes and foreign keys read from
 * `information_schema`, in the connection's database.
 *
 * A plain index on a text column is a prefix index (MariaDB cuts it to the longest key it can hold, with a warning);
 * a unique one is exact (MariaDB 10.4+ backs a unique key on a text column with a hash).
 *
 * No substring index: MariaDB has no trigram index, and a FULLTEXT index (words, not substrings) would find fewer rows
 * than `partial` finds, so a `substringIndex` stops the start-up with a message rather than answering differently.
 */
import { DeclarationError } from '../../errors.js';
import type { SchemaDialect } from './schema-dialect.js';
import { toColumnTypeCall } from './schema-dialect.js';
import { BINARY_COLLATION } from './mysql.js';

const INDEXES = `
  select index_name as name, non_unique as non_unique, group_concat(column_name order by seq_in_index separator ',') as columns
  from information_schema.statistics
  where table_schema = database() and table_name = ?
  group by index_name, non_unique`;

const FOREIGN_KEYS = `
  select k.column_name as "column", k.referenced_table_name as "table"
  from information_schema.key_column_usage k
  where k.table_schema = database() and k.table_name = ? and k.referenced_table_name is not null
    and (select count(*) from information_schema.key_column_usage o
         where o.table_schema = k.table_schema and o.table_name = k.table_name and o.constraint_name = k.constraint_name) = 1`;

/** knex's raw result on mysql2: the rows, then the fields. */
const rowsOf = <T>(result: unknown): T[] => (result as [T[], unknown])[0];

export const mysqlSchema: SchemaDialect = {
  columnType(type) {
    switch (type) {
      case 'datetime':
        // Milliseconds, as the other databases keep them; stored in UTC (the connection's time zone is `Z`).
        return { method: 'specificType', options: 'datetime(3)' };
      case 'date':
        return { method: 'date' };
      case 'json':
      case 'string[]':
      case 'file':
        return { method: 'specificType', options: 'longtext' };
      case 'reference':
        return { method: 'specificType', options: 'int unsigned' };
      case 'string':
      case 'text':
      case 'password':
        // TEXT holds 64 KiB; the other databases hold any length. MEDIUMTEXT: 16 MiB.
        return { method: 'specificType', options: 'mediumtext' };
      default:
        return toColumnTypeCall(type);
    }
  },
  // InnoDB for foreign keys and row locks; the binary collation so that uniqueness and order follow the code points,
  // as on SQLite and PostgreSQL (a database's default collation usually ignores case).
  tableCalls: [
    { method: 'engine', args: ['InnoDB'] },
    { method: 'charset', args: ['utf8mb4'] },
    { method: 'collate', args: [BINARY_COLLATION] },
  ],
  rebuildsTableToAlter: false,
  foreignKeysHoldIndexes: true,
  async readIndexes(knex, table) {
    const rows = rowsOf<{ name: string; non_unique: number | string; columns: string }>(
      await knex.raw(INDEXES, [table]),
    );
    return rows
      .filter((row) => row.name !== 'PRIMARY')
      .map((row) => ({ name: row.name, columns: row.columns.split(','), unique: Number(row.non_unique) === 0 }));
  },
  async readForeignKeys(knex, table) {
    return rowsOf<{ column: string; table: string }>(await knex.raw(FOREIGN_KEYS, [table]));
  },
  /**
   * MariaDB indexes columns only, with no WHERE: each indexed value is a virtual, invisible generated column
   * (`lower(email)`; for live items only, `case when deleted_at is null then … end`, null on a deleted item, and a
   * unique index ignores nulls), and the unique index is on them. `select *` does not show them.
   */
  expressionIndexStatements(table, index) {
    const generated = index.columns.map((column, position) => ({ column, name: `${index.name}_${position + 1}` }));
    const additions = generated.map(({ column, name }) => {
      const value = index.lowerCase?.includes(column) ? 'lower(??)' : '??';
      const live = index.liveOnly === undefined ? value : `case when ?? is null then ${value} end`;
      return {
        sql: `add column ?? mediumtext as (${live}) virtual invisible`,
        bindings: [name, ...(index.liveOnly === undefined ? [] : [index.liveOnly]), column],
      };
    });
    return {
      up: [
        {
          sql: `alter table ?? ${additions.map((a) => a.sql).join(', ')}, add unique index ?? (${generated.map(() => '??').join(', ')})`,
          bindings: [table, ...additions.flatMap((a) => a.bindings), index.name, ...generated.map((g) => g.name)],
        },
      ],
      down: [
        {
          sql: `alter table ?? drop index ??, ${generated.map(() => 'drop column ??').join(', ')}`,
          bindings: [table, index.name, ...generated.map((g) => g.name)],
        },
      ],
    };
  },
  readSubstringIndexes: async () => [],
  substringIndexStatements(table, index) {
    throw new DeclarationError(
      `${table}.${index.column}: a substringIndex is not supported on MariaDB or MySQL, which have no trigram index (a FULLTEXT index matches words, not the substrings "partial" matches). Remove "substringIndex" from the search filter; "partial" still works, by a scan.`,
    );
  },
};
