/**
 * `debug:resources` as text: boxed tables (the `table` package, no colours, so the output can be piped and compared).
 */
import { table as render } from 'table';
import type { FieldDescription, ResourceDescription, ShapeDescription } from './describe.js';

const EMPTY = '—';
const show = (value: string | null | undefined) =>
  value === null || value === undefined || value === '' ? EMPTY : value;
const yesNo = (value: boolean) => (value ? 'yes' : 'no');

/** A titled table, lines under the header only; `wrap` gives columns a width, their text wrapped at word boundaries. */
function table(
  title: string,
  head: readonly string[],
  rows: readonly (readonly string[])[],
  wrap: Readonly<Record<number, number>> = {},
): string {
  const columns = Object.fromEntries(Object.entries(wrap).map(([index, width]) => [index, { width, wrapWord: true }]));
  const text = render([[...head], ...rows.map((row) => [...row])], {
    columns,
    drawHorizontalLine: (line, size) => line === 0 || line === 1 || line === size,
  });
  return `${title}\n${text}`;
}

/** A field's name in a list, marked when computed: `wordCount (computed)`. */
const fieldName = (f: FieldDescription) => (f.computed ? `${f.name} (computed)` : f.name);
/** A field's type in a table, marked when computed: `integer, computed`. */
const fieldType = (f: FieldDescription) => (f.computed ? `${f.type}, computed` : f.type);

/** The custom operations of the resources: name, method, path, what they take and send, and their status. */
function customOperations(resources: readonly ResourceDescription[], withResource: boolean): string {
  const custom = resources.flatMap((r) =>
    r.operations.filter((o) => o.customName !== null).map((o) => ({ resource: r.name, o })),
  );
  if (custom.length === 0) return '';
  return table(
    `Custom operations (${custom.length})`,
    [
      ...(withResource ? ['Resource'] : []),
      'Name',
      'Operation',
      'Method',
      'Path',
      'Input',
      'Output',
      'Status',
      'Hooks',
    ],
    custom.map(({ resource, o }) => [
      ...(withResource ? [resource] : []),
      o.customName!,
      o.name,
      o.method,
      o.path,
      o.input ?? 'none',
      o.output ?? 'none',
      String(o.status),
      show(o.hooks.join(', ')),
    ]),
  );
}

/** The shapes custom operations take or send: their fields and the operations that use them. */
function shapesTable(shapes: readonly ShapeDescription[]): string {
  if (shapes.length === 0) return '';
  return table(
    `Shapes (${shapes.length})`,
    ['Shape', 'Fields', 'Used by'],
    shapes.map((s) => [s.name, s.fields.map((f) => f.name).join(', ') || EMPTY, s.usedBy.join(', ') || EMPTY]),
    { 1: 40, 2: 50 },
  );
}

/** Every resource, then every operation with its method, path, access rule and groups; custom operations and shapes. */
export function renderOverview(
  resources: readonly ResourceDescription[],
  shapes: readonly ShapeDescription[] = [],
): string {
  const overview = table(
    `Resources (${resources.length})`,
    ['Resource', 'Path', 'Table', 'Fields', 'Filters (query parameters)'],
    resources.map((r) => [
      r.name,
      r.path,
      show(r.table),
      r.fields.map(fieldName).join(', ') || EMPTY,
      r.filters.map((f) => f.parameter).join(', ') || EMPTY,
    ]),
    { 3: 40, 4: 60 },
  );
  const operations = table(
    `Operations (${resources.reduce((n, r) => n + r.operations.length, 0)})`,
    ['Resource', 'Operation', 'Method', 'Path', 'Access rule', 'Read groups', 'Write groups'],
    resources.flatMap((r) =>
      r.operations.map((o) => [
        r.name,
        o.name,
        o.method,
        o.path,
        show(o.rule),
        show(o.normalizationGroups),
        show(o.denormalizationGroups),
      ]),
    ),
  );
  const custom = customOperations(resources, true);
  const shaped = shapesTable(shapes);
  return `${overview}\n${operations}\n${custom ? `${custom}\n` : ''}${shaped ? `${shaped}\n` : ''}Run "resource-api debug:resources <resource>" for one resource${shaped ? ' or shape' : ''} in detail.\n`;
}

/** One resource: its settings, operations, filters and fields. */
export function renderResource(resource: ResourceDescription): string {
  const header = [
    resource.description ? `${resource.name}: ${resource.description}` : resource.name,
    `  path ${resource.path}, ${resource.table ? `table ${resource.table}` : 'its own provider and processor (no table)'}`,
    `  default order: ${resource.defaultOrder.length > 0 ? `${resource.defaultOrder.join(', ')}, then id` : 'id'}; If-Match required: ${yesNo(resource.requireIfMatch)}`,
  ].join('\n');
  const operations = table(
    'Operations',
    [
      'Operation',
      'Method',
      'Path',
      'Status',
      'Access rule',
      'Rule after denormalization',
      'Read groups',
      'Write groups',
      'Validation groups',
      'Pagination',
    ],
    resource.operations.map((o) => [
      o.name,
      o.method,
      o.path,
      String(o.status),
      show(o.rule),
      show(o.postDenormalizeRule),
      show(o.normalizationGroups),
      show(o.denormalizationGroups),
      show(o.validationGroups),
      show(o.pagination),
    ]),
  );
  const filters =
    resource.filters.length === 0
      ? 'Filters\n  none\n'
      : table(
          'Filters',
          ['#', 'Parameter', 'Property', 'Type', 'Multiple', 'Description'],
          resource.filters.map((f) => [
            String(f.filter),
            f.parameter,
            show(f.property),
            f.type,
            yesNo(f.multiple),
            show(f.description),
          ]),
        );
  const fields = table(
    'Fields',
    ['Field', 'Type', 'Column', 'Nullable', 'Readable', 'Writable', 'Groups', 'Access rule', 'Constraints'],
    resource.fields.map((f) => [
      f.name,
      fieldType(f),
      show(f.column),
      yesNo(f.nullable),
      yesNo(f.readable),
      f.immutable ? 'on create' : yesNo(f.writable),
      show(f.groups.join(', ')),
      show(f.rule),
      show(f.constraints.join(', ')),
    ]),
  );
  const custom = customOperations([resource], false);
  return `${header}\n\n${operations}\n${custom ? `${custom}\n` : ''}${filters}\n${fields}`;
}

/** One shape: its fields, and the operations that take or send it. */
export function renderShape(shape: ShapeDescription): string {
  const header = [
    shape.description ? `${shape.name}: ${shape.description}` : shape.name,
    `  a shape (no table, no operation of its own), used by ${shape.usedBy.join(', ') || 'no operation'}`,
  ].join('\n');
  const fields = table(
    'Fields',
    ['Field', 'Type', 'Nullable', 'Readable', 'Writable', 'Groups', 'Constraints'],
    shape.fields.map((f) => [
      f.name,
      f.type,
      yesNo(f.nullable),
      yesNo(f.readable),
      yesNo(f.writable),
      show(f.groups.join(', ')),
      show(f.constraints.join(', ')),
    ]),
  );
  return `${header}\n\n${fields}`;
}
