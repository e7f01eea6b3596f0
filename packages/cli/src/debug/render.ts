/** `debug:resources` as text: boxed tables (the `table` package, no colours, so the output can be piped and compared). */
import { table as render } from 'table';
import type { ResourceDescription } from './describe.js';

const EMPTY = '—';
const show = (value: string | null | undefined) => (value === null || value === undefined || value === '' ? EMPTY : value);
const yesNo = (value: boolean) => (value ? 'yes' : 'no');

/** A titled table, lines under the header only; `wrap` gives columns a width, their text wrapped at word boundaries. */
function table(title: string, head: readonly string[], rows: readonly (readonly string[])[], wrap: Readonly<Record<number, number>> = {}): string {
  const columns = Object.fromEntries(Object.entries(wrap).map(([index, width]) => [index, { width, wrapWord: true }]));
  const text = render([[...head], ...rows.map((row) => [...row])], { columns, drawHorizontalLine: (line, size) => line === 0 || line === 1 || line === size });
  return `${title}\n${text}`;
}

/** Every resource, then every operation with its method, path, access rule and groups. */
export function renderOverview(resources: readonly ResourceDescription[]): string {
  const overview = table(
    `Resources (${resources.length})`,
    ['Resource', 'Path', 'Table', 'Fields', 'Filters (query parameters)'],
    resources.map((r) => [r.name, r.path, show(r.table), r.fields.map((f) => f.name).join(', ') || EMPTY, r.filters.map((f) => f.parameter).join(', ') || EMPTY]),
    { 3: 40, 4: 60 },
  );
  const operations = table(
    `Operations (${resources.reduce((n, r) => n + r.operations.length, 0)})`,
    ['Resource', 'Operation', 'Method', 'Path', 'Access rule', 'Read groups', 'Write groups'],
    resources.flatMap((r) => r.operations.map((o) => [r.name, o.name, o.method, o.path, show(o.rule), show(o.normalizationGroups), show(o.denormalizationGroups)])),
  );
  return `${overview}\n${operations}\nRun "resource-api debug:resources <resource>" for one resource in detail.\n`;
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
    ['Operation', 'Method', 'Path', 'Status', 'Access rule', 'Rule after denormalization', 'Read groups', 'Write groups', 'Validation groups', 'Pagination'],
    resource.operations.map((o) => [o.name, o.method, o.path, String(o.status), show(o.rule), show(o.postDenormalizeRule), show(o.normalizationGroups), show(o.denormalizationGroups), show(o.validationGroups), show(o.pagination)]),
  );
  const filters =
    resource.filters.length === 0
      ? 'Filters\n  none\n'
      : table(
          'Filters',
          ['#', 'Parameter', 'Property', 'Type', 'Multiple', 'Description'],
          resource.filters.map((f) => [String(f.filter), f.parameter, show(f.property), f.type, yesNo(f.multiple), show(f.description)]),
        );
  const fields = table(
    'Fields',
    ['Field', 'Type', 'Column', 'Nullable', 'Readable', 'Writable', 'Groups', 'Access rule', 'Constraints'],
    resource.fields.map((f) => [f.name, f.type, show(f.column), yesNo(f.nullable), yesNo(f.readable), f.immutable ? 'on create' : yesNo(f.writable), show(f.groups.join(', ')), show(f.rule), show(f.constraints.join(', '))]),
  );
  return `${header}\n\n${operations}\n${filters}\n${fields}`;
}
