/**
 * Finds and loads the config module: `--config <file>`, else the first of `resource-api.config.{js,mjs,cjs}` in the
 * working directory. The module is imported as Node imports any module (compiled JavaScript: Node 20 runs no
 * TypeScript), its default export is awaited when it is a function, and its shape is checked here, so a mistake in
 * it is one clear line rather than a crash further on.
 */
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CliError } from '../errors.js';
import type { ConfigExport, ResourceApiConfig } from './config.js';

export const CONFIG_FILES = ['resource-api.config.js', 'resource-api.config.mjs', 'resource-api.config.cjs'] as const;

/** A loaded config, with the file it came from (relative paths in it are relative to that file's folder). */
export interface LoadedConfig {
  readonly file: string;
  readonly directory: string;
  readonly config: ResourceApiConfig;
}

/** The `--config` option, shared by every command that reads the app. */
export const CONFIG_OPTION = {
  config: {
    type: 'string',
    short: 'c',
    placeholder: '<file>',
    description: 'The config module (default: resource-api.config.js, .mjs or .cjs in the working directory).',
  },
} as const;

export async function loadConfig(cwd: string, explicit: string | undefined): Promise<LoadedConfig> {
  const file =
    explicit === undefined
      ? CONFIG_FILES.map((name) => resolve(cwd, name)).find((path) => existsSync(path))
      : resolve(cwd, explicit);
  if (file === undefined) {
    throw new CliError(
      `No config file: create ${CONFIG_FILES[0]} in ${cwd} (it default-exports { resources, ... }), or pass --config <file>.`,
    );
  }
  if (!existsSync(file)) throw new CliError(`The config file ${file} does not exist.`);
  let module: { default?: unknown };
  try {
    module = (await import(pathToFileURL(file).href)) as { default?: unknown };
  } catch (error) {
    throw new CliError(`Cannot load the config file ${file}: ${(error as Error).message}`, { cause: error });
  }
  const exported = module.default as ConfigExport | undefined;
  const config = typeof exported === 'function' ? await exported() : exported;
  checkConfig(config, file);
  return { file, directory: dirname(file), config };
}

function checkConfig(config: unknown, file: string): asserts config is ResourceApiConfig {
  if (config === null || typeof config !== 'object')
    throw new CliError(
      `The config file ${file} must default-export an object { resources, ... } (or a function returning one).`,
    );
  const { resources, database, migrations } = config as Record<string, unknown>;
  if (!Array.isArray(resources) || resources.length === 0)
    throw new CliError(`The config file ${file}: "resources" must be a non-empty list of declared resources.`);
  if (database !== undefined && typeof database !== 'string')
    throw new CliError(`The config file ${file}: "database" must be a URL string (sqlite:…, postgres://…, mysql://…).`);
  if (migrations !== undefined && (migrations === null || typeof migrations !== 'object'))
    throw new CliError(`The config file ${file}: "migrations" must be an object { directory }.`);
}
