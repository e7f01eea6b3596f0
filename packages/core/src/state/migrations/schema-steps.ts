/**
 * Each schema change as knex schema-builder calls held as data, so that the same calls are run by schema sync and
 * printed into a migration file: what sync does at start and what a generated migration does cannot drift apart.
 *
 * A step is one statement of a migration: `knex.schema.createTable(name, (table) => { ...chains })`, `alterTable`,
 * `dropTable`, or `knex.raw(sql, bindings)`. A chain is one line of the table callback:
 * `table.text('title').notNullable()`.
 *
 * SQLite: knex adds a foreign key to an existing table by rebuilding it (copy, drop, rename). Inside a transaction,
 * where a migration runs by default, SQLite ignores `PRAGMA foreign_keys = OFF`, so dropping the old table runs the
 * ON DELETE actions of the rows pointing at it (their rows are deleted with ON DELETE CASCADE). A relation column is
 * therefore added in place with `ALTER TABLE … ADD COLUMN … REFERENCES …`, which SQLite allows for a nullable column,
 * and the steps that still rebuild a table (a foreign key on an existing column, dropping a column) are flagged so
 * the migration writer runs them outside a transaction, where knex can turn the checks off for the rebuild.
 */
import type { Knex } from 'knex';
import type { SchemaDialect } from '../dialects/schema-dialect.js';
import type { ColumnSpec, ForeignKeySpec, IndexSpec, TableSpec } from './desired-schema.js';
import type { SchemaChange } from './diff-schema.js';

/** One method call of a knex builder: `{ method: 'references', args: ['id'] }`. */
export interface KnexCall {
  readonly method: string;
  readonly args: readonly unknown[];
}

/** Calls chained on the table builder of a `createTable` / `alterTable` callback. */
export type KnexChain = readonly KnexCall[];

export type SchemaStep =
  | {
      readonly kind: 'createTable' | 'alterTable';
      readonly table: string;
      readonly chains: readonly KnexChain[];
      readonly rebuildsTable: boolean;
    }
  | { readonly kind: 'dropTable'; readonly table: string }
  | { readonly kind: 'raw'; readonly sql: string; readonly bindings: readonly string[] };

export interface ChangeSteps {
  readonly up: readonly SchemaStep[];
  /** Undoes `up`; run in the reverse order of the changes. */
  readonly down: readonly SchemaStep[];
}

const call = (method: string, ...args: unknown[]): KnexCall => ({ method, args });

/**
 * An argument that is a function of knex's (`knex.fn.uuid()`): printed and applied as that call, on the migration's
 * knex.
 */
export interface KnexFunctionArgument {
  readonly knexFunction: 'uuid';
}

const isKnexFunction = (value: unknown): value is KnexFunctionArgument =>
  typeof value === 'object' && value !== null && 'knexFunction' in value;

function columnChain(column: ColumnSpec, dialect: SchemaDialect): KnexChain {
  if (column.type === 'increments') return [call('increments', column.name), call('primary')];
  const type = dialect.columnType(column.type);
  return [
    call(type.method, column.name, ...(type.options ? [type.options] : [])),
    ...(column.primary ? [call('primary')] : []),
    ...(column.generatedUuid ? [call('defaultTo', { knexFunction: 'uuid' } satisfies KnexFunctionArgument)] : []),
    call(column.nullable ? 'nullable' : 'notNullable'),
  ];
}

/** An argument as knex takes it: a knex function called on `knex`, anything else as it is. */
const toKnexArgument = (knex: Knex, value: unknown): unknown =>
  isKnexFunction(value) ? knex.fn[value.knexFunction]() : value;

/** An argument as a migration file writes it, on the knex (or transaction) named `knex`. */
export const toArgumentSource = (knex: string, value: unknown, literal: (value: unknown) => string): string =>
  isKnexFunction(value) ? `${knex}.fn.${value.knexFunction}()` : literal(value);

function foreignKeyChain(key: ForeignKeySpec): KnexChain {
  return [
    call('foreign', key.column),
    call('references', 'id'),
    call('inTable', key.table),
    ...(key.onDelete ? [call('onDelete', key.onDelete)] : []),
  ];
}

function indexChain(index: IndexSpec): KnexChain {
  // A unique index rather than a constraint on PostgreSQL too: dropped the same way on both, named as before.
  return index.unique
    ? [call('unique', index.columns, { indexName: index.name, useConstraint: false })]
    : [call('index', index.columns, index.name)];
}

function createTableChains(table: TableSpec, dialect: SchemaDialect): KnexChain[] {
  return [
    ...(dialect.tableCalls ?? []).map((tableCall) => [call(tableCall.method, ...tableCall.args)]),
    ...table.columns.map((column) => columnChain(column, dialect)),
    ...(table.primaryKey ? [[call('primary', table.primaryKey)]] : []),
    // An index on lower(column) is no builder call: a raw statement after the table (`toSteps`).
    ...table.indexes.filter((index) => !isRawIndex(index)).map(indexChain),
    ...table.foreignKeys.map(foreignKeyChain),
  ];
}

const alter = (table: string, chains: KnexChain[], rebuildsTable = false): SchemaStep => ({
  kind: 'alterTable',
  table,
  chains,
  rebuildsTable,
});

/** SQLite's in-place form: a nullable column with its REFERENCES clause, no table rebuild. */
function addReferenceColumnInPlace(
  table: string,
  column: ColumnSpec,
  key: ForeignKeySpec,
  dialect: SchemaDialect,
): SchemaStep {
  const onDelete = key.onDelete ? ` on delete ${key.onDelete.toLowerCase()}` : '';
  return {
    kind: 'raw',
    sql: `alter table ?? add column ?? ${column.type === 'uuid' ? 'char(36)' : dialect.columnType('reference').method} references ?? (??)${onDelete}`,
    bindings: [table, column.name, key.table, 'id'],
  };
}

const toRawStep = (statement: { sql: string; bindings: readonly string[] }): SchemaStep => ({
  kind: 'raw',
  sql: statement.sql,
  bindings: statement.bindings,
});

/** An index knex's builder cannot make: on expressions, or partial. */
const isRawIndex = (index: IndexSpec): boolean => (index.lowerCase?.length ?? 0) > 0 || index.liveOnly !== undefined;

/**
 * A unique index on `lower(column)` for the text columns of a case-insensitive Unique, or one on the live items of a
 * soft-deleted resource (`where deleted_at is null`): knex's builder takes columns only, so it is raw SQL, the same on
 * SQLite (3.9+, partial indexes 3.8+) and PostgreSQL. It backs the check's `lower(column) = lower(?)` and its
 * live-items-only condition.
 */
function rawIndexSteps(table: string, index: IndexSpec, dialect: SchemaDialect): ChangeSteps {
  if (dialect.expressionIndexStatements) {
    const { up, down } = dialect.expressionIndexStatements(table, index);
    return { up: up.map(toRawStep), down: down.map(toRawStep) };
  }
  const parts = index.columns.map((column) => (index.lowerCase?.includes(column) ? 'lower(??)' : '??'));
  const where = index.liveOnly === undefined ? '' : ' where ?? is null';
  return {
    up: [
      {
        kind: 'raw',
        sql: `create unique index ?? on ?? (${parts.join(', ')})${where}`,
        bindings: [index.name, table, ...index.columns, ...(index.liveOnly === undefined ? [] : [index.liveOnly])],
      },
    ],
    down: [{ kind: 'raw', sql: 'drop index ??', bindings: [index.name] }],
  };
}

export function toSteps(change: SchemaChange, dialect: SchemaDialect): ChangeSteps {
  const rebuilds = dialect.rebuildsTableToAlter;
  switch (change.kind) {
    case 'createTable':
      return {
        up: [
          {
            kind: 'createTable',
            table: change.table.name,
            chains: createTableChains(change.table, dialect),
            rebuildsTable: false,
          },
          ...change.table.indexes
            .filter(isRawIndex)
            .flatMap((index) => rawIndexSteps(change.table.name, index, dialect).up),
        ],
        down: [{ kind: 'dropTable', table: change.table.name }],
      };
    case 'addColumn': {
      const { table, column, foreignKey } = change;
      const up =
        foreignKey && rebuilds
          ? addReferenceColumnInPlace(table, column, foreignKey, dialect)
          : alter(table, [columnChain(column, dialect), ...(foreignKey ? [foreignKeyChain(foreignKey)] : [])]);
      const dropForeign = foreignKey && dialect.foreignKeysHoldIndexes ? [[call('dropForeign', [column.name])]] : [];
      return { up: [up], down: [alter(table, [...dropForeign, [call('dropColumn', column.name)]], rebuilds)] };
    }
    case 'addForeignKey':
      return {
        up: [alter(change.table, [foreignKeyChain(change.foreignKey)], rebuilds)],
        down: [alter(change.table, [[call('dropForeign', [change.foreignKey.column])]], rebuilds)],
      };
    case 'createIndex':
      if (isRawIndex(change.index)) return rawIndexSteps(change.table, change.index, dialect);
      return {
        up: [alter(change.table, [indexChain(change.index)])],
        down: [
          dialect.foreignKeysHoldIndexes
            ? { kind: 'raw', sql: 'drop index if exists ?? on ??', bindings: [change.index.name, change.table] }
            : alter(change.table, [[call('dropIndex', change.index.columns, change.index.name)]]),
        ],
      };
    case 'createSubstringIndex': {
      const { up, down } = dialect.substringIndexStatements(change.table, change.index);
      return { up: up.map(toRawStep), down: down.map(toRawStep) };
    }
  }
}

/** Whether a step rebuilds a table (SQLite), and so must run outside a transaction. */
export const rebuildsTable = (step: SchemaStep): boolean =>
  step.kind !== 'dropTable' && step.kind !== 'raw' && step.rebuildsTable;

/** Runs one step on a knex instance (or transaction), as the migration file would. */
export async function applyStep(knex: Knex, step: SchemaStep): Promise<void> {
  if (step.kind === 'raw') {
    await knex.raw(step.sql, [...step.bindings]);
    return;
  }
  if (step.kind === 'dropTable') {
    await knex.schema.dropTable(step.table);
    return;
  }
  const build = (table: Knex.CreateTableBuilder): void => {
    for (const chain of step.chains) {
      // Each call as the file prints it: the method, by name, on what the previous call returned.
      let target: unknown = table;
      for (const { method, args } of chain)
        target = (target as Record<string, (...a: unknown[]) => unknown>)[method]!(
          ...args.map((arg) => toKnexArgument(knex, arg)),
        );
    }
  };
  if (step.kind === 'createTable') await knex.schema.createTable(step.table, build);
  else await knex.schema.alterTable(step.table, build);
}
