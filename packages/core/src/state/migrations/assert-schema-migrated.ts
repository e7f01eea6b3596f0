/**
 * The start-up check when schema sync is off (production): the database must hold every table and column the
 * metadata needs, or start fails and says to run the migrations. Missing indexes and foreign keys only weaken the
 * database's protection, so they are reported as a warning. One cheap read of the schema (the same diff as sync).
 */
import { SchemaNotMigratedError } from '../../errors.js';
import type { MetadataRegistry } from '../../metadata/types.js';
import type { Database } from '../database.js';
import { describeChange, diffDatabase, isBlocking } from './diff-schema.js';

export async function assertSchemaMigrated(database: Database, registry: MetadataRegistry): Promise<void> {
  const { changes } = await diffDatabase(database, registry);
  const missing = changes.filter(isBlocking).map(describeChange);
  if (missing.length > 0) {
    throw new SchemaNotMigratedError(
      `The database lacks what the resources need (${missing.join('; ')}), and schema sync is off (NODE_ENV=production or schemaSync: false): ` +
        'run the migrations (runMigrations), generating one first if none covers this (generateMigration), or set schemaSync: true.',
    );
  }
  const weaker = changes.map(describeChange);
  if (weaker.length > 0)
    process.emitWarning(
      `resource-api: the database lacks indexes or foreign keys the resources declare (${weaker.join('; ')}): generate and run a migration.`,
    );
}
