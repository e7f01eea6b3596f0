/** Every command, in the order `resource-api --help` lists them. */
import type { Command, OptionSpecs } from '../command.js';
import { clientGenerate } from './client-generate.js';
import { dbSync } from './db-sync.js';
import { debugResources } from './debug-resources.js';
import { graphqlExport } from './graphql-export.js';
import { makeResource } from './make-resource.js';
import { migrationsGenerate } from './migrations-generate.js';
import { migrationsRollback } from './migrations-rollback.js';
import { migrationsRun } from './migrations-run.js';
import { openapiExport } from './openapi-export.js';

// Each command's `run` is typed by its own options; the list only needs what every command shares.
export const COMMANDS: readonly Command<OptionSpecs>[] = [
  debugResources,
  openapiExport,
  graphqlExport,
  clientGenerate,
  dbSync,
  migrationsGenerate,
  migrationsRun,
  migrationsRollback,
  makeResource,
] as unknown as readonly Command<OptionSpecs>[];
