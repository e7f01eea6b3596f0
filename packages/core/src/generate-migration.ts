/**
 * Compares the declared resources with the database and writes a knex migration for the difference: new tables,
 * columns, foreign keys and indexes (see `state/migrations/diff-schema.ts`), with the `down` that undoes them. Nothing
 * is written when the database already matches. It refuses while migrations of the folder have not run on the
 * database, since the diff would repeat what they do. It builds the metadata (`build/`) and runs the migrations of
 * `state/`, which sits under the build, so it lives beside plugin.ts.
 */
import { SchemaNotMigratedError } from './errors.js';
import { buildMetadata } from './build/build-metadata.js';
import type { ResourceInput } from './build/passes/collect-declarations.js';
import { diffDatabase } from './state/migrations/diff-schema.js';
import { type MigrationOptions, listPendingMigrations, runWithDatabase } from './state/migrations/run-migrations.js';
import { buildDefaultMigrationName, renderMigration, writeMigrationFile } from './state/migrations/write-migration.js';

/** What `generateMigration` compares: the resources against the database, with the folder's migrations run. */
export interface GenerateMigrationOptions extends MigrationOptions {
  /** The resources, as given to the plugin. */
  readonly resources: readonly ResourceInput[];
  /** The file name after the timestamp (`add_book_category`); default: made from the tables it changes. */
  readonly name?: string;
}

/**
 * Writes a migration file for what the database lacks; returns its path, or null when nothing differs.
 *
 * @example
 * const file = await generateMigration({ resources: [Author, Book], database: 'sqlite:var/data.db', directory: 'migrations' });
 */
export async function generateMigration(options: GenerateMigrationOptions): Promise<string | null> {
  const registry = buildMetadata({ resources: options.resources });
  return runWithDatabase(options, async (database) => {
    const pending = await listPendingMigrations(database.knex, options.directory);
    if (pending.length > 0) {
      throw new SchemaNotMigratedError(
        `${pending.length} migration(s) of ${options.directory} have not run on this database (${pending.join(', ')}): run them (runMigrations) before generating the next one.`,
      );
    }
    const diff = await diffDatabase(database, registry);
    if (diff.changes.length === 0) return null;
    const now = new Date();
    const source = renderMigration(diff, { dialect: database.dialect.name, generatedAt: now });
    return writeMigrationFile({
      directory: options.directory,
      name: options.name ?? buildDefaultMigrationName(diff),
      source,
      now,
    });
  });
}
