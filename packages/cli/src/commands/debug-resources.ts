/**
 * `debug:resources`: every resource with its operations, paths, filters, access rules and groups, the custom
 * operations and the shapes; or one resource (or shape) in detail.
 */
import { defineCommand } from '../command.js';
import { CONFIG_OPTION, loadConfig } from '../config/load-config.js';
import { didYouMean } from '../did-you-mean.js';
import { CliError } from '../errors.js';

export const debugResources = defineCommand({
  name: 'debug:resources',
  summary: 'List the resources, their operations, paths, filters, access rules and groups.',
  description: `
Without an argument: a table of every resource (path, table, fields, filter parameters) and one of every operation
(method, path, access rule, read and write groups), then the custom operations (name, method, path, input, output,
status, hooks) and the shapes they take or send. With a resource name: that resource in detail (operations with
status, rules, validation groups and pagination; its custom operations; each filter's query parameters; each field's
type, column, groups, rule and constraints, computed fields marked). With a shape name: its fields and the operations
using it. Rules, groups and hooks given as functions are shown by the function's name. No database is needed.`,
  arguments: [{ name: 'resource', description: 'A resource name (Book), or a shape name, to show in detail.' }],
  options: { ...CONFIG_OPTION, json: { type: 'boolean', description: 'Print JSON instead of tables.' } },
  examples: [
    'resource-api debug:resources',
    'resource-api debug:resources Book',
    'resource-api debug:resources --json | jq ".[].name"',
  ],
  async run({ options, args }, context) {
    const { config } = await loadConfig(context.cwd, options.config);
    const [{ buildRegistry }, { describeRegistry, describeShapes }, { renderOverview, renderResource, renderShape }] =
      await Promise.all([import('../app/registry.js'), import('../debug/describe.js'), import('../debug/render.js')]);
    const registry = buildRegistry(config);
    const resources = describeRegistry(registry);
    const shapes = describeShapes(registry);
    const wanted = args[0];
    if (wanted === undefined) {
      // The JSON stays the list of resources (each operation names its input and output); a shape: by its name.
      context.stdout.write(
        options.json ? `${JSON.stringify(resources, null, 2)}\n` : renderOverview(resources, shapes),
      );
      return;
    }
    const find = <T extends { name: string }>(list: readonly T[]) =>
      list.find((r) => r.name === wanted) ?? list.find((r) => r.name.toLowerCase() === wanted.toLowerCase());
    const resource = find(resources);
    if (resource) {
      context.stdout.write(options.json ? `${JSON.stringify(resource, null, 2)}\n` : renderResource(resource));
      return;
    }
    const shape = find(shapes);
    if (shape) {
      context.stdout.write(options.json ? `${JSON.stringify(shape, null, 2)}\n` : renderShape(shape));
      return;
    }
    const names = resources.map((r) => r.name);
    const shapeNames = shapes.map((s) => s.name);
    throw new CliError(
      `No resource "${wanted}".${didYouMean(wanted, [...names, ...shapeNames])} The resources are: ${names.join(', ')}.${shapeNames.length > 0 ? ` The shapes are: ${shapeNames.join(', ')}.` : ''}`,
    );
  },
});
