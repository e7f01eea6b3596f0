/**
 * What differs between the databases when a schema is described and read back, and nothing else: the column type of
 * each field type, whether changing a constraint rebuilds the table, and how a table's indexes and foreign keys are
 * listed. Kept beside `Dialect` (one per database, looked up by its name in `schema-dialects.ts`) so the request-time
 * dialect stays small.
 */
import type { Knex } from 'knex';
import type { ScalarType } from '../../metadata/declared.js';

/**
 * The type of a column: a field type, `reference` for the integer column of a to-one relation or a join table,
 * `uuid` for a UUID id and the columns referencing one, or `bigint` for the framework's own instants in milliseconds
 * (past what a 32-bit integer column holds).
 */
export type ColumnType = ScalarType | 'reference' | 'uuid' | 'bigint';

/** The knex column-builder method for a column type, and the options it takes after the column name. */
export interface ColumnTypeCall {
  readonly method: string;
  /** knex's options object (`{ useTz: true }`), or the type's SQL for `specificType` (`'datetime(3)'`). */
  readonly options?: Readonly<Record<string, unknown>> | string;
}

/** An index as the database lists it (unique constraints and primary keys included, where the database lists them). */
export interface LiveIndex {
  readonly name: string;
  readonly columns: readonly string[];
  readonly unique: boolean;
}

/** A single-column foreign key as the database lists it. */
export interface LiveForeignKey {
  readonly column: string;
  readonly table: string;
}

export interface SchemaDialect {
  columnType(type: ColumnType): ColumnTypeCall;
  /** Calls on the table builder of every table made (MariaDB: its engine and collation); none elsewhere. */
  readonly tableCalls?: readonly { readonly method: string; readonly args: readonly unknown[] }[];
  /**
   * SQLite cannot add a foreign key to an existing column or drop a column in place: knex rebuilds the table (create a
   * copy, copy the rows, drop, rename). PostgreSQL alters the table in place.
   */
  readonly rebuildsTableToAlter: boolean;
  /**
   * MariaDB: a foreign key needs an index on its column and refuses to lose it. Undoing a migration then drops a
   * relation column's foreign key before the column, and the plain indexes last, if they are still there (dropping a
   * column drops its indexes).
   */
  readonly foreignKeysHoldIndexes?: boolean;
  readIndexes(knex: Knex, table: string): Promise<LiveIndex[]>;
  readForeignKeys(knex: Knex, table: string): Promise<LiveForeignKey[]>;
  /** The names of a table's trigram (substring) indexes. */
  readSubstringIndexes(knex: Knex, table: string): Promise<string[]>;
  /**
   * The statements that make a unique index on expressions (`lower(column)`) or a partial one (live items only), and
   * drop it, when the database has no such index (MariaDB); absent, one `create unique index … where` does it.
   */
  expressionIndexStatements?(
    table: string,
    index: {
      readonly name: string;
      readonly columns: readonly string[];
      readonly lowerCase?: readonly string[];
      readonly liveOnly?: string;
    },
  ): { up: RawStatement[]; down: RawStatement[] };
  /** The statements that create a trigram index on a text column (filling it from the rows there), and drop it. */
  substringIndexStatements(
    table: string,
    index: { readonly name: string; readonly column: string },
  ): { up: RawStatement[]; down: RawStatement[] };
}

/** One SQL statement with its bindings (`??` an identifier, `?` a value). */
export interface RawStatement {
  readonly sql: string;
  readonly bindings: readonly string[];
}

/** Names that go into SQL text where no binding can (string literals of FTS5 options and triggers). */
export function assertPlainIdentifier(name: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new Error(`"${name}" is not a plain SQL identifier.`);
  return name;
}

/** The column types both databases share; each dialect overrides the date, date-time and JSON ones. */
export function toColumnTypeCall(type: ColumnType): ColumnTypeCall {
  switch (type) {
    case 'integer':
    case 'reference':
      return { method: 'integer' };
    case 'bigint':
      return { method: 'bigInteger' };
    case 'uuid':
      // PostgreSQL's `uuid`; SQLite's `char(36)`, the canonical lower-case text the framework writes and compares.
      return { method: 'uuid' };
    case 'float':
      return { method: 'double' };
    case 'boolean':
      return { method: 'boolean' };
    default:
      return { method: 'text' };
  }
}
