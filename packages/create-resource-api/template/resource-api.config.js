// What the `resource-api` command knows of the app (`npx resource-api --help`): the compiled resources, so run
// `npm run build` first. Its options are the plugin's (src/app.ts), plus `migrations`.
import { defineConfig } from '@resource-api/cli';
import { resources } from './dist/resources/index.js';

export default defineConfig({
  resources,
  database: process.env.DATABASE_URL ?? 'sqlite:var/app.db',
  migrations: { directory: 'migrations' },
});
