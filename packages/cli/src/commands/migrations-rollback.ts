/** `migrations:rollback`: undo the last batch of migrations (or all of them). */
import { defineCommand } from '../command.js';
import { CONFIG_OPTION } from '../config/load-config.js';
import {
  DATABASE_OPTIONS,
  MIGRATIONS_OPTIONS,
  migrationsSetup,
  redact,
  withDatabase,
} from '../database/database-options.js';

export const migrationsRollback = defineCommand({
  name: 'migrations:rollback',
  summary: 'Undo the last batch of migrations.',
  description: `
Runs the "down" of each migration of the last batch, newest first (every batch with --all). Generated migrations drop
what they created: the rows in those tables and columns are lost.`,
  options: {
    ...CONFIG_OPTION,
    ...DATABASE_OPTIONS,
    ...MIGRATIONS_OPTIONS,
    all: { type: 'boolean', description: 'Undo every batch, not only the last one.' },
  },
  examples: ['resource-api migrations:rollback', 'resource-api migrations:rollback --all'],
  async run({ options, verbose }, context) {
    const { target, directory } = await migrationsSetup(context, options);
    const { rollbackMigrations } = await import('@resource-api/core');
    const undone = await withDatabase(target, verbose, (database) =>
      rollbackMigrations({ database: database.knex, directory, all: options.all ?? false }),
    );
    context.stdout.write(
      undone.length > 0
        ? `Rolled back ${undone.length} migration(s) on ${redact(target.url)}: ${undone.join(', ')}.\n`
        : `Nothing to roll back on ${redact(target.url)}.\n`,
    );
  },
});
