/**
 * The public API of @resource-api/cli: the config module's type and helper, and `main` to run the command line from
 * code. The binary is `resource-api` (see docs/cli.md).
 */
export { defineConfig } from './config/config.js';
export type { ConfigExport, MigrationsConfig, ResourceApiConfig } from './config/config.js';
export { main } from './main.js';
export type { CommandContext } from './command.js';
