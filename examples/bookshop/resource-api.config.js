// @ts-check
/**
 * The bookshop as the `resource-api` command line sees it (docs/cli.md). From this folder, after `pnpm -r build`:
 * `pnpm exec resource-api debug:resources`, `pnpm exec resource-api openapi:export`, `pnpm exec resource-api db:sync`…
 *
 * It reads the compiled resources (dist/), the server's default database (DATABASE_URL wins over it, as for the
 * server), its documentation titles and the user side of its security (src/app.ts), so the exported documents are the
 * ones the server serves, and its migration folders, one per kind of database (src/migrations.ts).
 */
import { defineConfig } from '@resource-api/cli';
import { DEFAULT_DATABASE_URL } from './dist/config.js';
import { migrationsDirectory } from './dist/migrations.js';
import { resources } from './dist/resources/index.js';

export default defineConfig({
  resources,
  database: DEFAULT_DATABASE_URL,
  documentation: {
    title: 'Bookshop API',
    description:
      'The example app of resource-api: books, authors, users and their comments, a product catalog, articles.',
    version: '1.0.0',
  },
  security: {
    // The commands sign and check no token: the secret is never used. The users settings give the documents the
    // login route (POST /api/auth) and the client its login method.
    jwt: { secret: 'not-a-secret: the resource-api commands neither sign nor check tokens' },
    users: { resource: 'User', identifier: 'email', password: 'plainPassword', roles: 'roles' },
  },
  migrations: { directory: (database) => migrationsDirectory(database) },
});
