/**
 * What `debug:resources` shows, read from the frozen metadata as plain data (the `--json` output, and the rows of the
 * tables): each resource's operations with method and path, access rules, serialization groups, filters with the
 * query parameters they read, and fields; custom operations with their name, input, output and status; the shapes
 * operations take or send; computed fields marked. Functions (rules, groups) are shown by name, since their code is
 * not data.
 */
import {
  type FieldMetadata,
  hasTable,
  type MetadataRegistry,
  type OperationMetadata,
  type ResourceMetadata,
} from '@resource-api/core';

export interface FieldDescription {
  readonly name: string;
  /** `string`, `integer`, …, `toOne Author`, `toMany Book`. */
  readonly type: string;
  /** The column; null for a to-many relation and a computed field. */
  readonly column: string | null;
  /** A computed field (worked out when the item is sent: read-only, no column). */
  readonly computed: boolean;
  readonly nullable: boolean;
  readonly readable: boolean;
  readonly writable: boolean;
  readonly immutable: boolean;
  readonly groups: readonly string[];
  readonly rule: string | null;
  readonly constraints: readonly string[];
}

export interface OperationDescription {
  readonly name: string;
  /** A custom operation's declared name (`publish`); null for the built-in operations and subresources. */
  readonly customName: string | null;
  readonly kind: string;
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly rule: string | null;
  readonly postDenormalizeRule: string | null;
  readonly normalizationGroups: string | null;
  readonly denormalizationGroups: string | null;
  readonly validationGroups: string;
  readonly pagination: string | null;
  /** The body: a shape's name, `Article (update)` for the resource's fields in a write mode, or null for none. */
  readonly input: string | null;
  /** The response: a shape's name, the resource's name, or null for none (204). */
  readonly output: string | null;
  /** The write hooks it runs (the resource's and its own), by name: `beforeWrite (function stamp)`. */
  readonly hooks: readonly string[];
}

/** An input or output shape of custom operations: its fields, and the operations that use it. */
export interface ShapeDescription {
  readonly name: string;
  readonly description: string | null;
  readonly fields: readonly FieldDescription[];
  /** `Resource.operation (input)`, `Author.stats (output)`. */
  readonly usedBy: readonly string[];
}

export interface FilterParameterDescription {
  /** The filter's position among the resource's filters, from 1: parameters of one filter share it. */
  readonly filter: number;
  readonly parameter: string;
  readonly property: string | null;
  readonly type: string;
  readonly multiple: boolean;
  readonly description: string;
}

export interface ResourceDescription {
  readonly name: string;
  readonly description: string | null;
  readonly path: string;
  /** The table, or null when the resource has its own provider and processor. */
  readonly table: string | null;
  readonly requireIfMatch: boolean;
  readonly defaultOrder: readonly string[];
  readonly fields: readonly FieldDescription[];
  readonly operations: readonly OperationDescription[];
  readonly filters: readonly FilterParameterDescription[];
}

/** A rule or a groups function by name; a string rule (an expression) as written. */
const showFunction = (value: (...args: never[]) => unknown) => `(function${value.name ? ` ${value.name}` : ''})`;
const showRule = (rule: string | ((...args: never[]) => unknown) | undefined | null) =>
  rule === undefined || rule === null ? null : typeof rule === 'string' ? rule : showFunction(rule);
const showGroups = (groups: readonly string[] | ((...args: never[]) => unknown) | null) =>
  groups === null ? null : typeof groups === 'function' ? showFunction(groups) : groups.join(', ');

function fieldType(field: FieldMetadata): string {
  if (field.kind === 'scalar') return field.type;
  if (field.kind === 'toOne') return `toOne ${field.target}`;
  return `toMany ${field.target}${field.joinTable ? ' (many-to-many)' : ''}`;
}

function describeField(field: FieldMetadata): FieldDescription {
  return {
    name: field.name,
    type: fieldType(field),
    column: field.kind === 'toMany' || field.column === '' ? null : field.column,
    computed: field.kind === 'scalar' && field.computed !== undefined,
    nullable: field.nullable,
    readable: field.readable,
    writable: field.writable,
    immutable: field.immutable,
    groups: field.groups,
    rule: showRule(field.security),
    constraints: field.constraints.map((c) => c.kind),
  };
}

/** The body an operation reads: its input shape, the resource's fields in its write mode, or none. */
function inputOf(operation: OperationMetadata, resource: ResourceMetadata): string | null {
  if (!operation.stages.deserialize) return null;
  if (operation.input) return operation.input.name;
  return operation.writeMode ? `${resource.name} (${operation.writeMode})` : null;
}

/** What the response holds: the output shape, the resource (a page of it for a collection read), or nothing. */
function outputOf(operation: OperationMetadata, resource: ResourceMetadata): string | null {
  if (!operation.stages.serialize || operation.status === 204) return null;
  const item = operation.output ? operation.output.name : resource.name;
  return operation.collection && operation.method === 'GET' ? `${item} collection` : item;
}

function describeOperation(operation: OperationMetadata, resource: ResourceMetadata): OperationDescription {
  const { pagination } = operation;
  const { hooks } = operation;
  return {
    name: operation.name,
    customName: operation.customName,
    kind: operation.kind,
    method: operation.method,
    path: operation.uriTemplate,
    status: operation.status,
    rule: showRule(operation.security?.rule),
    postDenormalizeRule: showRule(operation.securityPostDenormalize?.rule),
    normalizationGroups: showGroups(operation.normalizationGroups),
    denormalizationGroups: showGroups(operation.denormalizationGroups),
    validationGroups: showGroups(operation.validationGroups) ?? '',
    pagination:
      pagination === null
        ? null
        : !pagination.enabled
          ? 'off'
          : `${pagination.cursor ? 'cursor' : 'pages'} of ${pagination.itemsPerPage}`,
    input: inputOf(operation, resource),
    output: outputOf(operation, resource),
    hooks: (['beforeWrite', 'afterWrite', 'afterCommit'] as const).flatMap((stage) =>
      hooks[stage].map((hook) => `${stage} ${showFunction(hook)}`),
    ),
  };
}

export function describeResource(resource: ResourceMetadata): ResourceDescription {
  return {
    name: resource.name,
    description: resource.description ?? null,
    path: resource.collectionPath,
    table: hasTable(resource) ? resource.table : null,
    requireIfMatch: resource.requireIfMatch,
    defaultOrder: resource.defaultOrder.map((o) => `${o.path} ${o.direction}`),
    fields: resource.fields.map(describeField),
    operations: resource.operations.map((operation) => describeOperation(operation, resource)),
    filters: resource.filters.flatMap((filter, index) =>
      filter.describe(resource).map((p) => ({
        filter: index + 1,
        parameter: p.variable,
        property: p.property,
        type: p.schema.enum ? p.schema.enum.join('|') : p.schema.type,
        multiple: p.isCollection,
        description: p.description,
      })),
    ),
  };
}

export const describeRegistry = (registry: MetadataRegistry): ResourceDescription[] =>
  registry.resources.map(describeResource);

/** Every shape of the registry, with the operations that take or send it. */
export function describeShapes(registry: MetadataRegistry): ShapeDescription[] {
  return registry.shapes.map((shape) => ({
    name: shape.name,
    description: shape.description ?? null,
    fields: shape.fields.map((field) => ({ ...describeField(field), column: null })),
    usedBy: registry.resources.flatMap((resource) =>
      resource.operations.flatMap((operation) => {
        const name = `${resource.name}.${operation.customName ?? operation.kind}`;
        return [
          ...(operation.input === shape ? [`${name} (input)`] : []),
          ...(operation.output === shape ? [`${name} (output)`] : []),
        ];
      }),
    ),
  }));
}
