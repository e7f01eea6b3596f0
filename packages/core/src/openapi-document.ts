/**
 * The OpenAPI document of a registry without a server, for tools (the CLI's export, the typed client generator):
 * the same document `/api/docs.json` serves, from the same builder and the same normalization plans. It composes
 * openapi/ with the serializer's plans, so it lives beside plugin.ts: openapi/ itself reads only metadata and schemas.
 */
import type { MetadataRegistry } from './metadata/types.js';
import { CURSOR_PARAMETERS } from './query/pagination.js';
import { createNormalizer } from './serializer/normalize.js';
import {
  buildOpenApi,
  type BuildOpenApiOptions,
  type DocumentationOptions,
  type OpenApiDocument,
} from './openapi/build-openapi.js';

/** Options of `buildOpenApiDocument`. */
export interface OpenApiDocumentOptions {
  /** Titles and version; `transformOpenApi` is applied as the server applies it. */
  readonly documentation?: DocumentationOptions;
  /**
   * The login route, when the app has one (`security` with users): its path under the prefix and the identifier field.
   */
  readonly login?: { readonly path: string; readonly identifier: string };
}

/**
 * The document from normalization plans: what `/api/docs.json` serves (with the running app's normalizer) and what
 * `buildOpenApiDocument` gives tools (with one made for planning only).
 */
export function composeOpenApiDocument(
  registry: MetadataRegistry,
  planOf: BuildOpenApiOptions['planOf'],
  options: OpenApiDocumentOptions = {},
): OpenApiDocument {
  const built = buildOpenApi(registry, {
    planOf,
    cursorParameters: CURSOR_PARAMETERS,
    ...(options.documentation ? { documentation: options.documentation } : {}),
    ...(options.login ? { login: options.login } : {}),
  });
  const transform = options.documentation?.transformOpenApi;
  return transform ? transform(structuredClone(built)) : built;
}

/** The OpenAPI 3.1 document of a registry without a server: the one `/api/docs.json` serves. */
export function buildOpenApiDocument(
  registry: MetadataRegistry,
  options: OpenApiDocumentOptions = {},
): OpenApiDocument {
  // Only the plans are used: nothing is read, so the normalizer never loads items.
  const normalizer = createNormalizer(registry, {
    skipNullValues: true,
    readMany: () => Promise.reject(new Error('Planning only: nothing is read.')),
  });
  return composeOpenApiDocument(registry, (resource, groups) => normalizer.plan(resource, groups), options);
}
