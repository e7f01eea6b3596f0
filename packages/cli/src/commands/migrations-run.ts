/** `migrations:run`: the pending migrations, in one batch. */
import { defineCommand } from '../command.js';
import { CONFIG_OPTION } from '../config/load-config.js';
import {
  DATABASE_OPTIONS,
  MIGRATIONS_OPTIONS,
  migrationsSetup,
  redact,
  withDatabase,
} from '../database/database-options.js';

export const migrationsRun = defineCommand({
  name: 'migrations:run',
  summary: 'Run the pending migrations on the database.',
  description: `
Runs the migration files that have not run on the database yet, in file-name order, as one batch (knex's migrator,
which records them in the knex_migrations table). Run it before starting the app with NODE_ENV=production.`,
  options: { ...CONFIG_OPTION, ...DATABASE_OPTIONS, ...MIGRATIONS_OPTIONS },
  examples: ['resource-api migrations:run', 'DATABASE_URL=postgres://app@db:5432/app resource-api migrations:run'],
  async run({ options, verbose }, context) {
    const { target, directory } = await migrationsSetup(context, options);
    const { runMigrations } = await import('@resource-api/core');
    const ran = await withDatabase(target, verbose, (database) =>
      runMigrations({ database: database.knex, directory }),
    );
    context.stdout.write(
      ran.length > 0
        ? `Ran ${ran.length} migration(s) on ${redact(target.url)}: ${ran.join(', ')}.\n`
        : `${redact(target.url)} is up to date: no pending migration in ${directory}.\n`,
    );
  },
});
