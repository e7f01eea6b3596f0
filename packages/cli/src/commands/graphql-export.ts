/** `graphql:export`: the GraphQL schema of the API in SDL. */
import { defineCommand } from '../command.js';
import { CONFIG_OPTION, loadConfig } from '../config/load-config.js';
import { OUT_OPTION, writeOutput } from '../output.js';

export const graphqlExport = defineCommand({
  name: 'graphql:export',
  summary: 'Print the GraphQL schema of the API (SDL).',
  description: `
Writes the schema served at /graphql, in the GraphQL schema definition language, as printGraphQLSchema prints it:
for client code generators and schema checks in CI. No database is needed.`,
  options: { ...CONFIG_OPTION, ...OUT_OPTION },
  examples: ['resource-api graphql:export > schema.graphql', 'resource-api graphql:export --out schema.graphql'],
  async run({ options }, context) {
    const { config } = await loadConfig(context.cwd, options.config);
    const [{ printGraphQLSchema }, { buildRegistry }] = await Promise.all([
      import('@resource-api/core'),
      import('../app/registry.js'),
    ]);
    const sdl = printGraphQLSchema(buildRegistry(config));
    writeOutput(context, options.out, sdl.endsWith('\n') ? sdl : `${sdl}\n`);
  },
});
