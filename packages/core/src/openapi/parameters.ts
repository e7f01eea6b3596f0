/**
 * The parameters of an operation: its URI variables, the query parameters of its collection's filters (as each
 * filter's `describe()` lists them), the pagination parameters its pagination lets clients use, and the conditional
 * request headers (`If-None-Match` on reads, `If-Match` on item writes).
 */
import type {
  FilterParameter,
  IdentifierMetadata,
  MetadataRegistry,
  OperationMetadata,
  ResourceMetadata,
} from '../metadata/types.js';
import type { JsonSchema } from '../schema/input-schema.js';

export type ParameterObject = Record<string, unknown>;

/** The names of the cursor parameters of keyset pagination (`id[gt]`, `id[lt]`). */
export interface CursorParameterNames {
  readonly greaterThan: string;
  readonly lessThan: string;
}

/** The schema of an id in a path or a query: a positive integer, or a UUID. */
export const buildIdSchema = (identifier: IdentifierMetadata): JsonSchema =>
  identifier.type === 'uuid' ? { type: 'string', format: 'uuid' } : { type: 'integer', minimum: 1 };

/**
 * `{id}`, and for subresources the parents' ids, each described by the resource it identifies. A custom operation's
 * other variables (`{slug}`) mean what its own provider or processor reads in them: strings.
 */
export function buildPathParameters(
  operation: OperationMetadata,
  resource: ResourceMetadata,
  registry: MetadataRegistry,
): ParameterObject[] {
  const names = [...operation.uriTemplate.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
  return names.map((name) => {
    const step = operation.subresource?.find((s) => s.variable === name);
    if (!step && name !== 'id' && operation.customName !== null) {
      return {
        name,
        in: 'path',
        required: true,
        description: `The "${name}" variable of the ${operation.customName} operation.`,
        schema: { type: 'string' },
      };
    }
    const owner = step ? registry.resource(step.resource) : resource;
    return {
      name,
      in: 'path',
      required: true,
      description: `The ${owner.name} identifier.`,
      schema: buildIdSchema(owner.identifier),
    };
  });
}

function filterParameter(parameter: FilterParameter): ParameterObject {
  const { type, enum: values, format } = parameter.schema;
  const value: JsonSchema = { type };
  if (values) value.enum = [...values];
  if (format) value.format = format;
  const object: ParameterObject = {
    name: parameter.variable,
    in: 'query',
    required: parameter.required,
    description: parameter.description,
    schema: parameter.isCollection ? { type: 'array', items: value } : value,
  };
  if (parameter.isCollection) {
    object.style = 'form';
    object.explode = true;
  }
  return object;
}

/** Every parameter of the resource's filters, in declaration order. */
export function buildFilterParameters(resource: ResourceMetadata): ParameterObject[] {
  return resource.filters.flatMap((filter) => filter.describe(resource)).map(filterParameter);
}

/** The pagination parameters a client may use on this collection operation. */
export function buildPaginationParameters(
  operation: OperationMetadata,
  cursor: CursorParameterNames,
  identifier: IdentifierMetadata,
): ParameterObject[] {
  const pagination = operation.pagination;
  if (!pagination) return [];
  const parameters: ParameterObject[] = [];
  const mayPaginate = pagination.enabled || pagination.clientEnabled;
  if (mayPaginate && pagination.cursor) {
    for (const [name, side] of [
      [cursor.greaterThan, 'greater'],
      [cursor.lessThan, 'less'],
    ] as const) {
      parameters.push({
        name,
        in: 'query',
        required: false,
        description: `Keyset pagination: the items whose id is ${side} than this one.`,
        schema: identifier.type === 'uuid' ? buildIdSchema(identifier) : { type: 'integer', minimum: 0 },
      });
    }
  } else if (mayPaginate) {
    parameters.push({
      name: pagination.pageParameterName,
      in: 'query',
      required: false,
      description: 'The collection page number.',
      schema: { type: 'integer', minimum: 1, default: 1 },
    });
  }
  if (mayPaginate && pagination.clientItemsPerPage) {
    parameters.push({
      name: pagination.itemsPerPageParameterName,
      in: 'query',
      required: false,
      description: `The number of items per page (at most ${pagination.maximumItemsPerPage}; larger values are lowered to it).`,
      schema: { type: 'integer', minimum: 0, default: pagination.itemsPerPage },
    });
  }
  if (pagination.clientEnabled) {
    parameters.push({
      name: pagination.enabledParameterName,
      in: 'query',
      required: false,
      description: 'Turn pagination on or off.',
      schema: { type: 'boolean' },
    });
  }
  if (mayPaginate && pagination.clientPartial && !pagination.cursor) {
    parameters.push({
      name: pagination.partialParameterName,
      in: 'query',
      required: false,
      description: 'Partial pagination: no count, no first and last page.',
      schema: { type: 'boolean' },
    });
  }
  return parameters;
}

/**
 * `If-None-Match` on every GET; `If-Match` on PUT, PATCH and DELETE (required when the resource says `requireIfMatch`).
 */
export function buildConditionalParameters(
  operation: OperationMetadata,
  resource: ResourceMetadata,
): ParameterObject[] {
  if (operation.method === 'GET') {
    return [
      {
        name: 'If-None-Match',
        in: 'header',
        required: false,
        description: 'ETags the client holds (`"…"`, `W/"…"`, or `*`): 304 without a body when one is current.',
        schema: { type: 'string' },
      },
    ];
  }
  // A restore reads no precondition (`pipeline/stages/preconditions.ts`).
  if ((operation.kind !== 'put' && operation.kind !== 'patch' && operation.kind !== 'delete') || operation.restores)
    return [];
  return [
    {
      name: 'If-Match',
      in: 'header',
      required: resource.requireIfMatch,
      description: `The ETag of the ${resource.name} as last read: the write happens only if it is still current (412 otherwise; \`*\`: any).`,
      schema: { type: 'string' },
    },
  ];
}
