/**
 * The OpenAPI 3.1 document of the API, built once from the metadata: one path per URI template (relative to the
 * server URL, the route prefix), one operation per declared operation (subresources included) with its stable
 * `operationId`, parameters (URI variables, filters, pagination), request body per write mode and write groups (or
 * the input shape of a custom operation), responses per read groups in JSON-LD and plain JSON (or the output shape),
 * the errors it can answer, the conditional request headers (ETag, If-None-Match → 304, If-Match → 412 / 428), and the
 * bearer JWT scheme on the operations guarded by an access rule. Reads metadata, the input schemas and the normalizer's
 * plans; nothing else.
 */
import type { MetadataRegistry, OperationMetadata, ResourceMetadata } from '../metadata/types.js';
import type { JsonSchema } from '../schema/input-schema.js';
import { type PlanOf, readWriteMode } from '../serializer/field-access.js';
import { toFixedGroups } from '../metadata/groups.js';
import { carriesEntityTag } from '../metadata/carries-entity-tag.js';
import {
  buildConditionalParameters,
  type CursorParameterNames,
  buildFilterParameters,
  buildPaginationParameters,
  type ParameterObject,
  buildPathParameters,
} from './parameters.js';
import { SchemaCatalog, toSchemaRef } from './schemas.js';
import { LOGOUT_SUBPATH, REFRESH_SUBPATH } from '../metadata/naming.js';

/** Titles and version of the API documents (OpenAPI `info`, Hydra `hydra:title` / `hydra:description`). */
export interface DocumentationOptions {
  /** Default `API`. */
  readonly title?: string;
  /** Default: none. Markdown is shown by Swagger UI. */
  readonly description?: string;
  /** The version of your API, not of OpenAPI (default `1.0.0`). */
  readonly version?: string;
  /**
   * Changes the generated OpenAPI document before it is served (examples, extra descriptions, `x-` extensions):
   * receives a copy, returns the document to serve. Called once, at start-up.
   */
  readonly transformOpenApi?: (document: OpenApiDocument) => OpenApiDocument;
}

export const DEFAULT_DOCUMENTATION = Object.freeze({ title: 'API', description: '', version: '1.0.0' });

/** The name of the bearer JWT security scheme. */
export const SECURITY_SCHEME = 'JWT';

/** The OpenAPI document: loosely typed where you may change it (`transformOpenApi`). */
export interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string; description?: string };
  // biome-ignore lint/suspicious/noExplicitAny: open-ended OpenAPI objects, which callers read and extend freely
  paths: Record<string, Record<string, any>>;
  // biome-ignore lint/suspicious/noExplicitAny: open-ended OpenAPI objects, which callers read and extend freely
  components: { schemas: Record<string, any>; responses: Record<string, any>; securitySchemes: Record<string, any> };
  [key: string]: unknown;
}

export interface BuildOpenApiOptions {
  readonly planOf: PlanOf;
  readonly cursorParameters: CursorParameterNames;
  readonly documentation?: DocumentationOptions;
  /** The login route, when security has one: its path under the prefix and the identifier field (`email`). */
  readonly login?: { readonly path: string; readonly identifier: string } | undefined;
}

const JSONLD = 'application/ld+json';
const JSON_TYPE = 'application/json';
const PROBLEM = 'application/problem+json';

const errorContent = (name: string): Record<string, unknown> => ({
  [JSONLD]: { schema: toSchemaRef(`${name}.jsonld`) },
  [PROBLEM]: { schema: toSchemaRef(name) },
});

/** A new object each time: the YAML document would otherwise show anchors and aliases. */
const etagHeader = () => ({
  description: 'The strong entity tag of this representation; send it back in If-Match or If-None-Match.',
  schema: { type: 'string' },
});

/** The error responses, shared by reference. */
const RESPONSES: Record<string, Record<string, unknown>> = {
  InvalidInput: {
    description: 'Invalid input: constraint violations (ConstraintViolationList), or a body that cannot be read.',
    content: {
      [JSONLD]: { schema: { anyOf: [toSchemaRef('ConstraintViolationList.jsonld'), toSchemaRef('Error.jsonld')] } },
      [PROBLEM]: { schema: { anyOf: [toSchemaRef('ConstraintViolationList'), toSchemaRef('Error')] } },
    },
  },
  InvalidParameter: { description: 'Invalid query parameter.', content: errorContent('Error') },
  Unauthorized: {
    description: 'Unauthorized: no valid bearer token, and the access rule needs one.',
    content: errorContent('Error'),
  },
  Forbidden: { description: 'Forbidden: the access rule denies it.', content: errorContent('Error') },
  NotFound: { description: 'Not found.', content: errorContent('Error') },
  Conflict: { description: 'Conflict: other items still point at this one.', content: errorContent('Error') },
  NotAcceptable: {
    description: 'Not acceptable: no response format matches the Accept header.',
    content: errorContent('Error'),
  },
  UnsupportedMediaType: {
    description: 'Unsupported media type: the Content-Type is not one listed here.',
    content: errorContent('Error'),
  },
  NotModified: {
    description: 'Not modified: If-None-Match names the current ETag; no body.',
    headers: { ETag: etagHeader() },
  },
  PreconditionFailed: {
    description: 'Precondition failed: the item changed since the ETag in If-Match was read (nothing written).',
    content: errorContent('Error'),
  },
  PreconditionRequired: {
    description: 'Precondition required: writes to this resource need If-Match.',
    content: errorContent('Error'),
  },
};

const responseRef = (name: keyof typeof RESPONSES & string) => ({ $ref: `#/components/responses/${name}` });

/** What a successful response is, in words: the built-in operations' sentences, a custom one's by what it sends. */
function successDescription(operation: OperationMetadata, resource: ResourceMetadata): string {
  const readsCollection = operation.collection && operation.method === 'GET';
  if (operation.customName !== null) {
    if (operation.status === 204 || !operation.stages.serialize)
      return `The "${operation.customName}" operation succeeded; no content.`;
    if (operation.output) return `The ${operation.output.name} of the "${operation.customName}" operation.`;
    if (readsCollection) return `${resource.name} collection.`;
    return operation.status === 201 ? `${resource.name} resource created.` : `${resource.name} resource.`;
  }
  if (operation.status === 204) return `${resource.name} resource deleted.`;
  return operation.method === 'GET'
    ? operation.collection
      ? `${resource.name} collection.`
      : `${resource.name} resource.`
    : operation.method === 'POST'
      ? `${resource.name} resource created.`
      : `${resource.name} resource updated.`;
}

function successResponse(
  operation: OperationMetadata,
  resource: ResourceMetadata,
  catalog: SchemaCatalog,
): Record<string, unknown> {
  const description = successDescription(operation, resource);
  if (operation.status === 204 || !operation.stages.serialize) return { description };
  const groups = toFixedGroups(operation.normalizationGroups);
  const { output } = operation;
  const body = (format: 'jsonld' | 'json') =>
    output
      ? catalog.shape(output, groups, format)
      : operation.collection && operation.method === 'GET'
        ? catalog.collection(resource, groups, format)
        : catalog.item(resource, groups, format);
  const response: Record<string, unknown> = {
    description,
    content: { [JSONLD]: { schema: body('jsonld') }, [JSON_TYPE]: { schema: body('json') } },
  };
  const headers: Record<string, unknown> = {};
  // The respond stage gives a Location to a 201 that sends the resource (an output shape has no IRI).
  if (operation.status === 201 && !output)
    headers.Location = {
      description: 'The IRI of the new resource.',
      schema: { type: 'string', format: 'iri-reference' },
    };
  if (carriesEntityTag(operation, resource)) headers.ETag = etagHeader();
  if (Object.keys(headers).length > 0) response.headers = headers;
  return response;
}

/** The request body: the resource's input schema for the operation's write mode, or its input shape's schema. */
function requestBody(
  operation: OperationMetadata,
  resource: ResourceMetadata,
  catalog: SchemaCatalog,
): Record<string, unknown> | undefined {
  if (!operation.stages.deserialize) return undefined;
  const groups = toFixedGroups(operation.denormalizationGroups);
  if (operation.input) {
    const schema = catalog.shape(operation.input, groups, 'json');
    return {
      required: true,
      description: `The ${operation.input.name} the "${operation.customName ?? operation.kind}" operation reads.`,
      content: Object.fromEntries(operation.inputFormats.map((type) => [type, { schema }])),
    };
  }
  const mode = readWriteMode(operation);
  if (!mode) return undefined;
  const validation = typeof operation.validationGroups === 'function' ? 'unknown' : new Set(operation.validationGroups);
  const schema = catalog.input(resource, mode, groups, validation);
  return {
    required: true,
    description: mode === 'create' ? `The new ${resource.name} resource.` : `The updated ${resource.name} resource.`,
    content: Object.fromEntries(operation.inputFormats.map((type) => [type, { schema }])),
  };
}

/** Whether another resource's relation refuses the deletion of items of `resource` (onDelete: restrict). */
const isReferencedWithRestrict = (resource: ResourceMetadata, registry: MetadataRegistry) =>
  registry.resources.some((r) =>
    r.fields.some((f) => f.kind === 'toOne' && f.target === resource.name && f.onDelete === 'restrict'),
  );

function buildOperation(
  operation: OperationMetadata,
  resource: ResourceMetadata,
  context: { registry: MetadataRegistry; catalog: SchemaCatalog; options: BuildOpenApiOptions },
): Record<string, unknown> {
  const { catalog } = context;
  const readsCollection = operation.collection && operation.method === 'GET';
  const parameters: ParameterObject[] = [...buildPathParameters(operation, resource, context.registry)];
  if (readsCollection)
    parameters.push(
      ...buildFilterParameters(resource),
      ...buildPaginationParameters(operation, context.options.cursorParameters, resource.identifier),
    );
  parameters.push(...buildConditionalParameters(operation, resource));
  const seen = new Set<string>();
  const unique = parameters.filter((p) => !seen.has(`${p.in}:${p.name}`) && seen.add(`${p.in}:${p.name}`));

  const result: Record<string, unknown> = {
    operationId: operation.name,
    tags: [resource.name],
    summary: operation.description,
    description: operation.description,
  };
  if (unique.length > 0) result.parameters = unique;

  const body = requestBody(operation, resource, catalog);
  if (body) result.requestBody = body;

  const responses: Record<string, unknown> = {
    [String(operation.status)]: successResponse(operation, resource, catalog),
  };
  // A custom write's own processor may refuse with violations (`validationError`), body or not.
  const refuses = operation.customName !== null && operation.stages.write && operation.processor !== undefined;
  // A restore is refused with the Unique violation when a live item now holds the restored item's values.
  if (operation.stages.deserialize || refuses || operation.restores) responses['400'] = responseRef('InvalidInput');
  else if (readsCollection && unique.some((p) => p.in === 'query')) responses['400'] = responseRef('InvalidParameter');
  const guarded = operation.security !== null || operation.securityPostDenormalize !== null;
  if (guarded) {
    responses['401'] = responseRef('Unauthorized');
    responses['403'] = responseRef('Forbidden');
    result.security = [{ [SECURITY_SCHEME]: [] }];
  }
  // An item is read (404 when missing): every item operation, and a custom one whose provider reads by its variables.
  if (operation.subresource || (!operation.collection && operation.stages.read))
    responses['404'] = responseRef('NotFound');
  // A restore of an item that is not deleted is a 409.
  if ((operation.kind === 'delete' && isReferencedWithRestrict(resource, context.registry)) || operation.restores)
    responses['409'] = responseRef('Conflict');
  if (operation.method === 'GET') responses['304'] = responseRef('NotModified');
  const conditional =
    (operation.kind === 'put' || operation.kind === 'patch' || operation.kind === 'delete') && !operation.restores;
  if (conditional) responses['412'] = responseRef('PreconditionFailed');
  if (conditional && resource.requireIfMatch) responses['428'] = responseRef('PreconditionRequired');
  responses['406'] = responseRef('NotAcceptable');
  if (operation.stages.deserialize) responses['415'] = responseRef('UnsupportedMediaType');
  result.responses = responses;
  return result;
}

/** `POST /auth`: credentials in, a bearer token out. */
function loginOperation(login: { path: string; identifier: string }): Record<string, unknown> {
  const credentials = {
    type: 'object',
    properties: { [login.identifier]: { type: 'string' }, password: { type: 'string', writeOnly: true } },
    required: [login.identifier, 'password'],
  };
  return {
    operationId: 'login_check_post',
    tags: ['Login'],
    summary: 'Creates a user token.',
    description: `Logs a user in with ${login.identifier} and password; send the token back as \`Authorization: Bearer <token>\`.`,
    requestBody: {
      required: true,
      description: 'The credentials.',
      content: { [JSON_TYPE]: { schema: credentials }, [JSONLD]: { schema: credentials } },
    },
    responses: {
      '200': {
        description: 'The token and the refresh token.',
        content: { [JSON_TYPE]: { schema: tokenPair } },
      },
      '400': { description: 'A credential is missing.', content: errorContent('Error') },
      '401': { description: 'Invalid credentials.', content: errorContent('Error') },
      '415': responseRef('UnsupportedMediaType'),
    },
  };
}

const tokenPair = {
  type: 'object',
  properties: { token: { type: 'string', readOnly: true }, refresh_token: { type: 'string', readOnly: true } },
  required: ['token', 'refresh_token'],
};

/** `POST /auth/refresh`: a refresh token in, the next pair out (the one sent is retired). */
function refreshOperation(): Record<string, unknown> {
  const body = { type: 'object', properties: { refresh_token: { type: 'string' } }, required: ['refresh_token'] };
  return {
    operationId: 'login_refresh_post',
    tags: ['Login'],
    summary: 'Exchanges a refresh token for a new token pair.',
    description: 'The refresh token sent is retired; sending it again revokes every refresh token of its login.',
    requestBody: { required: true, description: 'The refresh token.', content: { [JSON_TYPE]: { schema: body } } },
    responses: {
      '200': { description: 'The new token and refresh token.', content: { [JSON_TYPE]: { schema: tokenPair } } },
      '400': { description: 'The refresh token is missing.', content: errorContent('Error') },
      '401': {
        description: 'The refresh token is unknown, expired, revoked or already used.',
        content: errorContent('Error'),
      },
      '415': responseRef('UnsupportedMediaType'),
    },
  };
}

/** `POST /auth/logout`: revokes the refresh tokens of the login the bearer token belongs to. */
function logoutOperation(): Record<string, unknown> {
  return {
    operationId: 'login_logout_post',
    tags: ['Login'],
    summary: "Revokes the login's refresh tokens.",
    security: [{ [SECURITY_SCHEME]: [] }],
    responses: {
      '204': { description: 'Logged out.' },
      '401': { description: 'No token, or a bad one.', content: errorContent('Error') },
    },
  };
}

/** The whole document. Deterministic: the same metadata gives the same document, key for key. */
export function buildOpenApi(registry: MetadataRegistry, options: BuildOpenApiOptions): OpenApiDocument {
  const documentation = { ...DEFAULT_DOCUMENTATION, ...options.documentation };
  const catalog = new SchemaCatalog(registry, options.planOf);
  const paths: OpenApiDocument['paths'] = {};
  const prefix = registry.prefix;
  for (const resource of registry.resources) {
    for (const operation of resource.operations) {
      const path = operation.uriTemplate.slice(prefix.length) || '/';
      const item = (paths[path] ??= {});
      item[operation.method.toLowerCase()] = buildOperation(operation, resource, { registry, catalog, options });
    }
  }
  if (options.login) {
    (paths[options.login.path] ??= {}).post = loginOperation(options.login);
    (paths[`${options.login.path}${REFRESH_SUBPATH}`] ??= {}).post = refreshOperation();
    (paths[`${options.login.path}${LOGOUT_SUBPATH}`] ??= {}).post = logoutOperation();
  }
  const info: OpenApiDocument['info'] = { title: documentation.title, version: documentation.version };
  if (documentation.description) info.description = documentation.description;
  const sorted = Object.fromEntries(
    Object.keys(catalog.schemas)
      .sort()
      .map((name) => [name, catalog.schemas[name] as JsonSchema]),
  );
  return {
    openapi: '3.1.0',
    info,
    servers: [{ url: prefix || '/', description: 'This API' }],
    tags: [
      ...registry.resources.map((r) =>
        r.description ? { name: r.name, description: r.description } : { name: r.name },
      ),
      ...(options.login
        ? [{ name: 'Login', description: 'Bearer tokens for the operations with an access rule.' }]
        : []),
    ],
    paths,
    components: {
      schemas: sorted,
      responses: RESPONSES,
      securitySchemes: {
        [SECURITY_SCHEME]: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description: 'A token from the login route, sent as `Authorization: Bearer <token>`.',
        },
      },
    },
  };
}
