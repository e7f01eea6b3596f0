/** `debug:resources`: every resource with its operations, paths, filters, access rules and groups; or one in detail. */
import { defineCommand } from '../command.js';
import { CONFIG_OPTION, loadConfig } from '../config/load-config.js';
import { didYouMean } from '../did-you-mean.js';
import { CliError } from '../errors.js';

export const debugResources = defineCommand({
  name: 'debug:resources',
  summary: 'List the resources, their operations, paths, filters, access rules and groups.',
  description: `
Without an argument: a table of every resource (path, table, fields, filter parameters) and one of every operation
(method, path, access rule, read and write groups). With a resource name: that resource in detail (operations with
status, rules, validation groups and pagination; each filter's query parameters; each field's type, column, groups,
rule and constraints). Rules and groups given as functions are shown by the function's name. No database is needed.`,
  arguments: [{ name: 'resource', description: 'A resource name (Book) to show in detail.' }],
  options: { ...CONFIG_OPTION, json: { type: 'boolean', description: 'Print JSON instead of tables.' } },
  examples: ['resource-api debug:resources', 'resource-api debug:resources Book', 'resource-api debug:resources --json | jq ".[].name"'],
  async run({ options, args }, context) {
    const { config } = await loadConfig(context.cwd, options.config);
    const [{ buildRegistry }, { describeRegistry }, { renderOverview, renderResource }] = await Promise.all([
      import('../app/registry.js'),
      import('../debug/describe.js'),
      import('../debug/render.js'),
    ]);
    const resources = describeRegistry(buildRegistry(config));
    const wanted = args[0];
    if (wanted === undefined) {
      context.stdout.write(options.json ? `${JSON.stringify(resources, null, 2)}\n` : renderOverview(resources));
      return;
    }
    const resource = resources.find((r) => r.name === wanted) ?? resources.find((r) => r.name.toLowerCase() === wanted.toLowerCase());
    if (!resource) {
      const names = resources.map((r) => r.name);
      throw new CliError(`No resource "${wanted}".${didYouMean(wanted, names)} The resources are: ${names.join(', ')}.`);
    }
    context.stdout.write(options.json ? `${JSON.stringify(resource, null, 2)}\n` : renderResource(resource));
  },
});
