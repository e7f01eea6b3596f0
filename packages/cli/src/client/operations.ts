/**
 * What the client calls, read from the metadata (which operations exist, their kinds and URI templates) and from the
 * OpenAPI document built from it (the component schema of each response and request body, the query parameters, the
 * media types, whether an access rule guards it). The document decides every shape, so the client and the API's
 * documentation cannot disagree.
 */
import type { MetadataRegistry, OpenApiDocument, OperationMetadata, ResourceMetadata } from '@resource-api/core';
import { camelCase, pascalCase } from './naming.js';
import type { QueryParameter } from './query-params.js';
import { type JsonSchema, refName } from './schema-to-ts.js';

/** The client method of each declared kind. */
export const METHOD_OF_KIND = { getCollection: 'list', get: 'get', post: 'create', put: 'replace', patch: 'update', delete: 'delete' } as const;

export interface ClientOperation {
  readonly metadata: OperationMetadata;
  /** The resource whose items it reads or writes. */
  readonly resource: ResourceMetadata;
  /** The resource whose client object carries the method: the resource, or a subresource's outermost parent. */
  readonly owner: ResourceMetadata;
  /** `list`, `get`, `create`, `replace`, `update`, `delete`, or a subresource's fields in camelCase (`books`). */
  readonly methodName: string;
  readonly pathVariables: readonly string[];
  readonly queryParameters: readonly QueryParameter[];
  /** The component schema of the body and the media type it is sent as, when the operation reads a body. */
  readonly body: { readonly component: string; readonly contentType: string } | undefined;
  /** The component schema of the item the response holds (a collection's member), or undefined for 204. */
  readonly response: string | undefined;
  /** Guarded by an access rule: 401 without a token, 403 when it denies. */
  readonly secured: boolean;
}

const JSONLD = 'application/ld+json';
const MERGE_PATCH = 'application/merge-patch+json';

/** The item component of a JSON-LD response: the schema itself, or a Hydra collection's member. */
function responseComponent(operation: Record<string, unknown>, status: number): string | undefined {
  const response = (operation.responses as Record<string, { content?: Record<string, { schema?: JsonSchema }> }>)[String(status)];
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

function requestBody(operation: Record<string, unknown>, metadata: OperationMetadata): ClientOperation['body'] {
  const content = (operation.requestBody as { content?: Record<string, { schema: JsonSchema }> } | undefined)?.content;
  if (!content) return undefined;
  const types = Object.keys(content);
  const preferred = metadata.kind === 'patch' ? MERGE_PATCH : JSONLD;
  const contentType = types.includes(preferred) ? preferred : types[0]!;
  const component = refName(content[contentType]!.schema);
  if (component === undefined) throw new Error(`The request body of ${metadata.name} is no component schema.`);
  return { component, contentType };
}

/** The subresource's method name: its fields from the outermost parent down (`books`, `tagsPosts`). */
const subresourceMethod = (metadata: OperationMetadata): string => camelCase(metadata.subresource!.map((step) => pascalCase(step.field)).join(''));

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
      operations.push({
        metadata,
        resource,
        owner: subresource ? registry.resource(metadata.subresource![0]!.resource) : resource,
        methodName: subresource ? subresourceMethod(metadata) : METHOD_OF_KIND[metadata.kind as keyof typeof METHOD_OF_KIND],
        pathVariables: parameters.filter((p) => p.in === 'path').map((p) => p.name),
        queryParameters: parameters.filter((p) => p.in === 'query').map(({ in: _in, ...parameter }) => parameter),
        body: requestBody(described, metadata),
        response: metadata.status === 204 ? undefined : responseComponent(described, metadata.status),
        secured: Array.isArray(described.security) && described.security.length > 0,
      });
    }
  }
  return operations;
}
