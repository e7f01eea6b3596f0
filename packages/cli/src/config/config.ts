/**
 * The config module the CLI reads (`resource-api.config.js`): the options you give the `resourceApi` plugin, so the
 * CLI sees the API your server serves, plus what only the CLI needs (where migrations live).
 */
import type { ResourceApiOptions } from '@resource-api/core';

/**
 * The config module's `migrations`: where `migrations:generate`, `migrations:run` and `migrations:rollback` keep the
 * files.
 */
export interface MigrationsConfig {
  /**
   * The folder of the migration files, relative to the config file (default `migrations`). A function gets the
   * database URL, for apps that keep one folder per kind of database (`migrations/sqlite`, `migrations/postgres`).
   */
  readonly directory?: string | ((database: string) => string);
}

/**
 * What a config module (`resource-api.config.js`) exports: the plugin's options, with the database as a URL, and
 * `migrations`. See docs/cli.md.
 */
export interface ResourceApiConfig extends Omit<ResourceApiOptions, 'database'> {
  /**
   * The database URL (`sqlite:var/data.db`, `postgres://…`, `mysql://…`). `--database` and then `DATABASE_URL` win over
   * it; with none of the three, `sqlite:var/data.db` (relative to the working directory, as the plugin does).
   */
  readonly database?: string;
  readonly migrations?: MigrationsConfig;
}

/** The config module's default export: the config, or a function (async or not) returning it. */
export type ConfigExport = ResourceApiConfig | (() => ResourceApiConfig | Promise<ResourceApiConfig>);

/**
 * Types a config module's default export.
 *
 * @example
 * // resource-api.config.js
 * import { defineConfig } from '@resource-api/cli';
 * import { resources } from './dist/resources/index.js';
 * export default defineConfig({ resources, migrations: { directory: 'migrations' } });
 */
export const defineConfig = <T extends ConfigExport>(config: T): T => config;
