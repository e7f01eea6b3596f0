/**
 * What the client calls, read from the metadata (which operations exist, their kinds and URI templates) and from the
 * OpenAPI document built from it (the component schema of each response and request body, the query parameters, the
 * media types, whether an access rule guards it). The document decides every resource's shape, so the client and the
 * API's documentation cannot disagree. A custom operation's input and output shapes (`defineShape`) are read from the
 * metadata: the client types them from their fields (see `ShapeUse`).
 */
import type { MetadataRegistry, OpenApiDocument, OperationMetadata, ResourceMetadata } from '@resource-api/core';
import { camelCase, pascalCase } from './naming.js';
import type { QueryParameter } from './query-params.js';
import { type JsonSchema, refName } from './schema-to-ts.js';

/** The client method of each declared kind. */
export const METHOD_OF_KIND = {
  getCollection: 'list',
  get: 'get',
  post: 'create',
  put: 'replace',
  patch: 'update',
  delete: 'delete',
} as const;

/**
 * A shape (DTO) as one operation uses it: its body (`input`, the writable fields in the write groups) or its response
 * (`output`, the readable fields in the read groups). `key` stands for its type where a component name would.
 */
export interface ShapeUse {
  readonly key: string;
  readonly shape: ResourceMetadata;
  readonly direction: 'input' | 'output';
  /** The fixed groups in force, or null for every field (none declared, or a function of the request). */
  readonly groups: readonly string[] | null;
  /** The validation groups that decide which body fields are required (empty when a function chooses them). */
  readonly validationGroups: readonly string[];
}

export interface ClientOperation {
  readonly metadata: OperationMetadata;
  /** The resource whose items it reads or writes. */
  readonly resource: ResourceMetadata;
  /** The resource whose client object carries the method: the resource, or a subresource's outermost parent. */
  readonly owner: ResourceMetadata;
  /**
   * `list`, `get`, `create`, `replace`, `update`, `delete`, a subresource's fields in camelCase (`books`), or a custom
   * operation's name (`publish`).
   */
  readonly methodName: string;
  /** A custom operation (declared with `name` and `uriTemplate`). */
  readonly custom: boolean;
  readonly pathVariables: readonly string[];
  readonly queryParameters: readonly QueryParameter[];
  /**
   * The component schema of the body (or the key of its input shape) and the media type it is sent as, when the
   * operation reads a body.
   */
  readonly body: { readonly component: string; readonly contentType: string } | undefined;
  /**
   * The component schema of the item the response holds (a collection's member; or an output shape's key), or undefined
   * for 204.
   */
  readonly response: string | undefined;
  /** The shapes the operation takes or sends, by key. */
  readonly shapes: readonly ShapeUse[];
  /** Guarded by an access rule: 401 without a token, 403 when it denies. */
  readonly secured: boolean;
}

const JSONLD = 'application/ld+json';
const MERGE_PATCH = 'application/merge-patch+json';

/** The item component of a JSON-LD response: the schema itself, or a Hydra collection's member. */
function responseComponent(operation: Record<string, unknown>, status: number): string | undefined {
  const response = (operation.responses as Record<string, { content?: Record<string, { schema?: JsonSchema }> }>)[
    String(status)
  ];
  const schema = response?.content?.[JSONLD]?.schema;
  if (!schema) return undefined;
  const direct = refName(schema);
  if (direct !== undefined) return direct;
  for (const part of (schema.allOf ?? []) as JsonSchema[]) {
    const member = (part.properties as Record<string, JsonSchema> | undefined)?.['hydra:member'];
    const item = member && refName(member.items);
    if (item !== undefined) return item;
  }
  throw new Error(`No item schema in the ${status} response of ${String(operation.operationId)}.`);
}

/** The media type a body is sent as: a JSON merge patch for a PATCH, else JSON-LD, when the operation takes them. */
function preferredType(types: readonly string[], metadata: OperationMetadata): string {
  const preferred = metadata.kind === 'patch' ? MERGE_PATCH : JSONLD;
  return types.includes(preferred) ? preferred : types[0]!;
}

function requestBody(operation: Record<string, unknown>, metadata: OperationMetadata): ClientOperation['body'] {
  const content = (operation.requestBody as { content?: Record<string, { schema: JsonSchema }> } | undefined)?.content;
  if (!content) return undefined;
  const contentType = preferredType(Object.keys(content), metadata);
  const component = refName(content[contentType]!.schema);
  if (component === undefined) throw new Error(`The request body of ${metadata.name} is no component schema.`);
  return { component, contentType };
}

/** The subresource's method name: its fields from the outermost parent down (`books`, `tagsPosts`). */
const subresourceMethod = (metadata: OperationMetadata): string =>
  camelCase(metadata.subresource!.map((step) => pascalCase(step.field)).join(''));

const fixedGroups = (groups: OperationMetadata['normalizationGroups']): readonly string[] | null =>
  groups === null || typeof groups === 'function' || groups.length === 0 ? null : [...groups].sort();

/** The use of an operation's input or output shape, keyed by shape, direction and groups (one type each). */
function shapeUse(shape: ResourceMetadata, direction: 'input' | 'output', metadata: OperationMetadata): ShapeUse {
  const groups = fixedGroups(direction === 'input' ? metadata.denormalizationGroups : metadata.normalizationGroups);
  const validationGroups =
    direction === 'input' && typeof metadata.validationGroups !== 'function'
      ? [...metadata.validationGroups].sort()
      : [];
  return {
    key: `shape:${direction}:${shape.name}:${groups?.join(',') ?? ''}:${validationGroups.join(',')}`,
    shape,
    direction,
    groups,
    validationGroups,
  };
}

/** Every operation of the registry the client can call, resource by resource, in declaration order. */
export function clientOperations(registry: MetadataRegistry, document: OpenApiDocument): ClientOperation[] {
  const operations: ClientOperation[] = [];
  for (const resource of registry.resources) {
    for (const metadata of resource.operations) {
      const path = metadata.uriTemplate.slice(registry.prefix.length) || '/';
      const described = document.paths[path]?.[metadata.method.toLowerCase()] as Record<string, unknown> | undefined;
      if (!described) throw new Error(`The OpenAPI document has no ${metadata.method} ${path} (${metadata.name}).`);
      const parameters = (described.parameters ?? []) as Array<QueryParameter & { in: string }>;
      const subresource = metadata.kind === 'getSubresource';
      const custom = metadata.customName !== null;
      // Shapes come from the metadata: the body and the response are the shape's, whatever the document says.
      const input =
        metadata.input && metadata.stages.deserialize ? shapeUse(metadata.input, 'input', metadata) : undefined;
      const output =
        metadata.output && metadata.stages.serialize ? shapeUse(metadata.output, 'output', metadata) : undefined;
      const sends = metadata.stages.serialize && metadata.status !== 204;
      operations.push({
        metadata,
        resource,
        owner: subresource ? registry.resource(metadata.subresource![0]!.resource) : resource,
        methodName: subresource
          ? subresourceMethod(metadata)
          : custom
            ? metadata.customName!
            : METHOD_OF_KIND[metadata.kind as keyof typeof METHOD_OF_KIND],
        custom,
        pathVariables: custom ? metadata.uriVariables : parameters.filter((p) => p.in === 'path').map((p) => p.name),
        queryParameters: parameters.filter((p) => p.in === 'query').map(({ in: _in, ...parameter }) => parameter),
        body: input
          ? { component: input.key, contentType: preferredType(metadata.inputFormats, metadata) }
          : metadata.stages.deserialize
            ? requestBody(described, metadata)
            : undefined,
        response: !sends ? undefined : output ? output.key : responseComponent(described, metadata.status),
        shapes: [input, output].filter((use): use is ShapeUse => use !== undefined),
        secured: Array.isArray(described.security) && described.security.length > 0,
      });
    }
  }
  return operations;
}
