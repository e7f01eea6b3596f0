/** `openapi:export`: the app's OpenAPI 3.1 document, in JSON or YAML, to stdout or a file. */
import { defineCommand } from '../command.js';
import { CONFIG_OPTION, loadConfig } from '../config/load-config.js';
import { UsageError } from '../errors.js';
import { OUT_OPTION, writeOutput } from '../output.js';

export const openapiExport = defineCommand({
  name: 'openapi:export',
  summary: 'Print the OpenAPI 3.1 document of the API (JSON or YAML).',
  description: `
Writes the document the app serves at /api/docs.json (or /api/docs.yaml): the same paths, schemas, login route and
"documentation" settings, transformOpenApi included. No database is needed.`,
  options: {
    ...CONFIG_OPTION,
    format: {
      type: 'string',
      short: 'f',
      placeholder: '<json|yaml>',
      description: 'The format (default: yaml when --out ends in .yaml or .yml, else json).',
    },
    ...OUT_OPTION,
  },
  examples: [
    'resource-api openapi:export > openapi.json',
    'resource-api openapi:export --format yaml --out docs/openapi.yaml',
  ],
  async run({ options }, context) {
    const format = options.format ?? (/\.ya?ml$/i.test(options.out ?? '') ? 'yaml' : 'json');
    if (format !== 'json' && format !== 'yaml')
      throw new UsageError(
        `Unknown format "${format}": use json or yaml.`,
        'Run "resource-api openapi:export --help".',
      );
    const { config } = await loadConfig(context.cwd, options.config);
    const { servedOpenApi } = await import('../app/served-openapi.js');
    writeOutput(context, options.out, await servedOpenApi(config, format));
  },
});
