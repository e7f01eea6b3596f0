/**
 * What `debug:resources` shows, read from the frozen metadata as plain data (the `--json` output, and the rows of the
 * tables): each resource's operations with method and path, access rules, serialization groups, filters with the
 * query parameters they read, and fields. Functions (rules, groups) are shown by name, since their code is not data.
 */
import { type FieldMetadata, hasTable, type MetadataRegistry, type OperationMetadata, type ResourceMetadata } from '@resource-api/core';

export interface FieldDescription {
  readonly name: string;
  /** `string`, `integer`, …, `toOne Author`, `toMany Book`. */
  readonly type: string;
  readonly column: string | null;
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
const showRule = (rule: string | ((...args: never[]) => unknown) | undefined | null) => (rule === undefined || rule === null ? null : typeof rule === 'string' ? rule : showFunction(rule));
const showGroups = (groups: readonly string[] | ((...args: never[]) => unknown) | null) => (groups === null ? null : typeof groups === 'function' ? showFunction(groups) : groups.join(', '));

function fieldType(field: FieldMetadata): string {
  if (field.kind === 'scalar') return field.type;
  if (field.kind === 'toOne') return `toOne ${field.target}`;
  return `toMany ${field.target}${field.joinTable ? ' (many-to-many)' : ''}`;
}

function describeField(field: FieldMetadata): FieldDescription {
  return {
    name: field.name,
    type: fieldType(field),
    column: field.kind === 'toMany' ? null : field.column,
    nullable: field.nullable,
    readable: field.readable,
    writable: field.writable,
    immutable: field.immutable,
    groups: field.groups,
    rule: showRule(field.security),
    constraints: field.constraints.map((c) => c.kind),
  };
}

function describeOperation(operation: OperationMetadata): OperationDescription {
  const { pagination } = operation;
  return {
    name: operation.name,
    kind: operation.kind,
    method: operation.method,
    path: operation.uriTemplate,
    status: operation.status,
    rule: showRule(operation.security?.rule),
    postDenormalizeRule: showRule(operation.securityPostDenormalize?.rule),
    normalizationGroups: showGroups(operation.normalizationGroups),
    denormalizationGroups: showGroups(operation.denormalizationGroups),
    validationGroups: showGroups(operation.validationGroups) ?? '',
    pagination: pagination === null ? null : !pagination.enabled ? 'off' : `${pagination.cursor ? 'cursor' : 'pages'} of ${pagination.itemsPerPage}`,
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
    operations: resource.operations.map(describeOperation),
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

export const describeRegistry = (registry: MetadataRegistry): ResourceDescription[] => registry.resources.map(describeResource);
