/**
 * The typed client generator: from the metadata, TypeScript sources for a fetch client of the API — the types of
 * every resource as read and as written (per serialization groups), the filters of each collection as typed
 * parameters, and `createClient` with a method per operation. Everything goes through the OpenAPI document the API
 * serves, built from the same metadata (`buildOpenApiDocument`), so the shapes are the ones the API documents.
 * See docs/typed-client.md.
 */
import { buildOpenApiDocument, type MetadataRegistry } from '@resource-api/core';
import { emitClient } from './emit-client.js';
import { emitTypes } from './emit-types.js';
import { TypeNames } from './naming.js';
import { clientOperations } from './operations.js';
import { HEADER, RESERVED_NAMES, RUNTIME } from './runtime-source.js';

export interface GenerateClientOptions {
  /** The server root the client calls by default (`http://127.0.0.1:8000`); without it, `createClient` needs one. */
  readonly baseUrl?: string;
  /**
   * The login route, when the app has one (`security.users`): its path under the prefix (default `/auth`) and the
   * identifier field (`email`). Adds `client.login(credentials)`, which keeps the token for the next calls.
   */
  readonly login?: { readonly path?: string; readonly identifier: string };
}

/** The client's files: relative name → TypeScript source (`types.ts`, `runtime.ts`, `client.ts`, `index.ts`). */
export function generateClient(
  registry: MetadataRegistry,
  options: GenerateClientOptions = {},
): Record<string, string> {
  const login = options.login
    ? { path: options.login.path ?? '/auth', identifier: options.login.identifier }
    : undefined;
  const document = buildOpenApiDocument(registry, login ? { login } : {});
  const operations = clientOperations(registry, document);
  const names = new TypeNames(RESERVED_NAMES);
  const types = emitTypes(registry, document, operations, names);
  const client = emitClient(registry, document, operations, types, names, {
    baseUrl: options.baseUrl,
    loginPath: login?.path,
  });
  return {
    'types.ts': types.source,
    'runtime.ts': `${HEADER}\n${RUNTIME}`,
    'client.ts': client,
    'index.ts': `${HEADER}\nexport * from './types.js';\nexport * from './runtime.js';\nexport * from './client.js';\n`,
  };
}
