/** `migrations:generate`: a knex migration for what the resources declare and the migrations do not make yet. */
import { existsSync } from 'node:fs';
import { defineCommand } from '../command.js';
import { CONFIG_OPTION } from '../config/load-config.js';
import { DATABASE_OPTIONS, MIGRATIONS_OPTIONS, migrationsSetup, withDatabase } from '../database/database-options.js';
import { withScratchDatabase } from '../database/scratch-database.js';
import { displayPath } from '../output.js';

export const migrationsGenerate = defineCommand({
  name: 'migrations:generate',
  summary: 'Write a migration for what the resources declare and the migrations lack.',
  description: `
Writes <stamp>_<name>.mjs, a knex migration (up and down) creating the tables, columns, foreign keys and indexes the
resources need, or nothing when there is nothing to add.

By default the existing migrations are run into a scratch database of the same kind as the target (an in-memory
SQLite, a throw-away schema of the PostgreSQL database, or a throw-away database on the MariaDB server), and that is compared with the resources: a development
database kept up to date by schema sync hides no change. With --diff-database, the target database itself is compared
(its pending migrations must have run). A migration is written for the kind of database it is generated on.`,
  arguments: [
    { name: 'name', description: 'The file name after the timestamp (default: made from the tables it changes).' },
  ],
  options: {
    ...CONFIG_OPTION,
    ...DATABASE_OPTIONS,
    ...MIGRATIONS_OPTIONS,
    'diff-database': {
      type: 'boolean',
      description: 'Compare the target database itself instead of a scratch database built from the migrations.',
    },
  },
  examples: [
    'resource-api migrations:generate',
    'resource-api migrations:generate add_book_isbn --database postgres://app@127.0.0.1:5432/app',
  ],
  async run({ options, args, verbose }, context) {
    const { loaded, target, directory } = await migrationsSetup(context, options);
    const { generateMigration, runMigrations } = await import('@resource-api/core');
    const common = {
      resources: loaded.config.resources,
      directory,
      ...(args[0] === undefined ? {} : { name: args[0] }),
    };
    const file = options['diff-database']
      ? await withDatabase(target, verbose, (database) => generateMigration({ ...common, database: database.knex }))
      : await withScratchDatabase(target, verbose, async (scratch) => {
          if (existsSync(directory)) await runMigrations({ database: scratch.knex, directory });
          return generateMigration({ ...common, database: scratch.knex });
        });
    context.stdout.write(
      file
        ? `Wrote ${displayPath(context.cwd, file)}: review it, then run it with "resource-api migrations:run".\n`
        : `Nothing to write: the migrations in ${directory} already make what the resources declare.\n`,
    );
  },
});
