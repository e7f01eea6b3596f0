/**
 * Development schema sync: at start, creates the tables, columns, foreign keys and indexes the metadata describes and
 * adds the ones missing from existing tables (a relation column with its foreign key, on SQLite too). It never drops
 * or alters what exists, and never adds a foreign key to an existing column: that is a migration's job
 * (`migrations/`). Sync and the migration writer run the same diff through the same knex calls (`schema-steps.ts`).
 */
import type { MetadataRegistry } from '../metadata/types.js';
import type { Database } from './database.js';
import { schemaDialects } from './dialects/schema-dialects.js';
import { diffDatabase, type SchemaChange } from './migrations/diff-schema.js';
import { applyStep, toSteps } from './migrations/schema-steps.js';

export { buildUniqueIndexName } from './migrations/desired-schema.js';

/** Brings the database up to the metadata: missing tables, columns and indexes are created. */
export async function syncSchema(database: Database, registry: MetadataRegistry): Promise<void> {
  const { changes } = await diffDatabase(database, registry);
  const dialect = schemaDialects[database.dialect.name];
  for (const change of changes) {
    // Existing rows may break a new constraint, and SQLite would rebuild the table: left to a migration.
    if (change.kind === 'addForeignKey' && change.existingColumn) continue;
    for (const step of toSteps(change, dialect).up) {
      try {
        await applyStep(database.knex, step);
      } catch (error) {
        if (!isDuplicateRows(change, error, database)) throw error;
        // The Unique constraint still checks writes; the index is the backstop when two requests race past it.
        process.emitWarning(
          `resource-api: no unique index on ${change.table}(${change.index.columns.join(', ')}): existing rows hold duplicates.`,
        );
      }
    }
  }
}

/** A unique index refused because rows already break it. */
function isDuplicateRows(
  change: SchemaChange,
  error: unknown,
  database: Database,
): change is Extract<SchemaChange, { kind: 'createIndex' }> {
  if (change.kind !== 'createIndex' || !change.index.unique) return false;
  return database.dialect.isUniqueViolation(error) || /unique|duplicate/i.test(String((error as Error).message));
}
