/** `db:sync`: development schema sync, as the server does at start, without starting it. */
import { defineCommand } from '../command.js';
import { CONFIG_OPTION, loadConfig } from '../config/load-config.js';
import { DATABASE_OPTIONS, databaseTarget, redact, withDatabase } from '../database/database-options.js';

export const dbSync = defineCommand({
  name: 'db:sync',
  summary: 'Create the missing tables, columns and indexes in the database.',
  description: `
Brings the database up to the resources as the server does at start in development: creates missing tables, columns,
foreign keys and indexes. It never drops or alters what exists. In production, use migrations instead
(migrations:generate, migrations:run).`,
  options: { ...CONFIG_OPTION, ...DATABASE_OPTIONS },
  examples: ['resource-api db:sync', 'resource-api db:sync --database postgres://app@127.0.0.1:5432/app --schema dev'],
  async run({ options, verbose }, context) {
    const loaded = await loadConfig(context.cwd, options.config);
    const [{ hasTable, syncSchema }, { buildRegistry }] = await Promise.all([
      import('@resource-api/core'),
      import('../app/registry.js'),
    ]);
    const registry = buildRegistry(loaded.config);
    const target = databaseTarget(loaded, options, context.env);
    await withDatabase(target, verbose, (database) => syncSchema(database, registry));
    const tables = registry.resources.filter(hasTable).map((r) => r.table);
    context.stdout.write(
      `Synced ${redact(target.url)}${target.schema ? ` (schema ${target.schema})` : ''}: tables ${tables.join(', ')} and their columns and indexes are there.\n`,
    );
  },
});
