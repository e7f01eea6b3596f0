/** `client:generate`: a typed TypeScript client of the API, written to a folder. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { loginPathOf } from '@resource-api/core';
import { defineCommand } from '../command.js';
import type { ResourceApiConfig } from '../config/config.js';
import { CONFIG_OPTION, loadConfig } from '../config/load-config.js';
import { CliError } from '../errors.js';
import { displayPath } from '../output.js';

/** The app's login route, when its security has one: the client gets a `login` method for it. */
function loginOf(config: ResourceApiConfig): { login?: { path?: string; identifier: string } } {
  const security = config.security;
  const path = security ? loginPathOf(security) : false;
  if (!security || path === false) return {};
  return { login: { path, identifier: security.users.identifier ?? 'email' } };
}

export const clientGenerate = defineCommand({
  name: 'client:generate',
  summary: 'Write a typed TypeScript client of the API.',
  description: `
Generates TypeScript files for calling the API from a browser or Node: the types of each resource as read and
written, the filters of each collection, and createClient with a method per operation (and login, when the app has a
login route). The files are written into --out (created when missing; files of the same names are
replaced). No database is needed.`,
  options: {
    ...CONFIG_OPTION,
    out: {
      type: 'string',
      short: 'o',
      placeholder: '<dir>',
      description: 'The folder to write the client into (default ./api-client).',
    },
    'base-url': {
      type: 'string',
      placeholder: '<url>',
      description: "The API's base URL built into the client (default: none, given when the client is created).",
    },
  },
  examples: [
    'resource-api client:generate',
    'resource-api client:generate --out web/src/api --base-url https://shop.example.com',
  ],
  async run({ options }, context) {
    const { config } = await loadConfig(context.cwd, options.config);
    const [{ buildRegistry }, { generateClient }] = await Promise.all([
      import('../app/registry.js'),
      import('../client/index.js'),
    ]);
    const files = generateClient(buildRegistry(config), {
      ...(options['base-url'] === undefined ? {} : { baseUrl: options['base-url'] }),
      ...loginOf(config),
    });
    const folder = resolve(context.cwd, options.out ?? 'api-client');
    for (const [name, content] of Object.entries(files)) {
      const file = resolve(folder, name);
      // A file name from the generator stays inside the folder.
      if (relative(folder, file).startsWith('..'))
        throw new CliError(`The client generator named a file outside ${folder}: ${name}.`);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, content);
    }
    context.stdout.write(
      `Wrote ${Object.keys(files).length} file(s) to ${displayPath(context.cwd, folder)}: ${Object.keys(files).sort().join(', ')}.\n`,
    );
  },
});
