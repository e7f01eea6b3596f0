/**
 * The database handles the persistence contracts hand to providers, processors and hooks (`StateContext.db`,
 * `transaction`, and the query `execute` runs): knex's. Declared here, by merging into metadata's `DatabaseHandles`,
 * so that metadata/ names no database library.
 */
import type { Knex } from 'knex';

declare module '../metadata/types.js' {
  interface DatabaseHandles {
    readonly db: Knex;
    readonly transaction: Knex.Transaction;
    readonly query: Knex.QueryBuilder;
  }
}

/** The handle of the database, as providers are given it. */
export type DatabaseHandle = Knex;
