/**
 * `client.ts`: `createClient(options)` with one object per resource (`client.books`) whose methods are the operations
 * the resource has: `list`, `get`, `create`, `replace`, `update` (a JSON merge patch), `delete`, its custom operations
 * by their names (`client.articles.publish(id)`, `client.users.changePassword(id, body)`), and its subresources
 * (`client.authors.books(id, params)`), each typed with the shapes of `types.ts`. The interfaces are written out, so
 * an editor shows every method with its documentation.
 */
import type { MetadataRegistry, OpenApiDocument, ResourceMetadata } from '@resource-api/core';
import type { EmittedTypes } from './emit-types.js';
import { camelCase, docComment, literal, propertyKey, type TypeNames } from './naming.js';
import type { ClientOperation } from './operations.js';
import { HEADER } from './runtime-source.js';
import { type JsonSchema, toTs } from './schema-to-ts.js';

export interface ClientSourceOptions {
  /** The server root the client calls when `createClient` is given none. */
  readonly baseUrl?: string | undefined;
  /** The login route's path under the prefix (`/auth`), when the app has one: adds `client.login(credentials)`. */
  readonly loginPath?: string | undefined;
}

interface Method {
  /** `list(params?: BookListParams, call?: RequestOptions): Promise<…>` */
  readonly signature: string;
  /** `list: (params, call) => transport.request<…>(…)` */
  readonly implementation: string;
  readonly doc: string;
}

const ITEM_KINDS = new Set(['get', 'put', 'patch', 'delete']);
/** Names a method's other parameters (and the code around them) use: a path variable so named gets a suffix. */
const RESERVED_PARAMETERS = new Set(['body', 'params', 'call', 'transport', 'options']);

function method(operation: ClientOperation, name: string, types: EmittedTypes, registry: MetadataRegistry): Method {
  const { metadata, resource } = operation;
  const returns =
    operation.response === undefined
      ? 'void'
      : metadata.collection && metadata.method === 'GET'
        ? `HydraCollection<${types.typeOf(operation.response)}>`
        : types.typeOf(operation.response);
  const parameters: string[] = [];
  const names: string[] = [];
  let path = literal(metadata.uriTemplate);
  if (operation.custom) {
    // `{id}` is the item's id (or IRI); any other variable is the operation's own, named after it (`{slug}` → `slug`).
    const variables = operation.pathVariables.map((variable) => {
      const name = variable === 'id' ? 'id' : camelCase(variable);
      return { variable, name: RESERVED_PARAMETERS.has(name) ? `${name}Value` : name };
    });
    for (const { variable, name: parameter } of variables) {
      parameters.push(`${parameter}: ${variable === 'id' ? 'Id' : 'string | number'}`);
      names.push(parameter);
    }
    const entries = variables.map(({ variable, name: parameter }) =>
      propertyKey(variable) === parameter ? parameter : `${propertyKey(variable)}: ${parameter}`,
    );
    if (entries.length > 0)
      path = `transport.operationPath(${literal(metadata.uriTemplate)}, ${literal(resource.collectionPath)}, { ${entries.join(', ')} })`;
  } else if (ITEM_KINDS.has(metadata.kind)) {
    parameters.push('id: Id');
    names.push('id');
    path = `transport.itemPath(${literal(metadata.uriTemplate)}, ${literal(resource.collectionPath)}, id)`;
  } else if (operation.pathVariables.length > 0) {
    // `{id}` is the outermost parent's id; deeper ones are named by the field that led there (`{books}` → `booksId`).
    const variables = operation.pathVariables.map((variable) => ({
      variable,
      name: variable === 'id' ? 'id' : `${camelCase(variable)}Id`,
    }));
    for (const { variable, name: parameter } of variables) {
      // Each parent's id as its resource has them: a number, or a UUID string.
      const step = metadata.subresource?.find((candidate) => candidate.variable === variable);
      const uuid = step !== undefined && registry.resource(step.resource).identifier.type === 'uuid';
      parameters.push(`${parameter}: ${uuid ? 'string' : 'number'}`);
      names.push(parameter);
    }
    path = `transport.expand(${literal(metadata.uriTemplate)}, { ${variables.map(({ variable, name: parameter }) => (propertyKey(variable) === parameter ? parameter : `${propertyKey(variable)}: ${parameter}`)).join(', ')} })`;
  }
  const init: string[] = [];
  if (operation.body) {
    parameters.push(`body: ${types.typeOf(operation.body.component)}`);
    names.push('body');
    init.push('body', `contentType: ${literal(operation.body.contentType)}`);
  }
  const params = types.paramsOf(operation);
  if (params) {
    parameters.push(`params${params.required ? '' : '?'}: ${params.name}`);
    names.push('params');
    init.push('query: params');
  }
  // A resource with `requireIfMatch` answers 428 to a write without If-Match: the types ask for it.
  const needsIfMatch =
    resource.requireIfMatch && (metadata.kind === 'put' || metadata.kind === 'patch' || metadata.kind === 'delete');
  parameters.push(needsIfMatch ? 'call: RequestOptions & { ifMatch: string }' : 'call?: RequestOptions');
  names.push('call');
  init.push('options: call');
  const changes =
    operation.body?.contentType === 'application/merge-patch+json'
      ? ' (a JSON merge patch: what is left out is kept)'
      : operation.custom && metadata.writeMode === 'update'
        ? ' (the changes to the item: what is left out is kept)'
        : '';
  const lines = [metadata.description, `\`${metadata.method} ${metadata.uriTemplate}\`${changes}.`];
  if (operation.custom && metadata.status !== 204 && metadata.status !== 200 && metadata.status !== 201)
    lines.push(`Answers ${metadata.status} on success.`);
  if (needsIfMatch) lines.push('Needs the ETag of the item as last read in `ifMatch` (412 when it changed since).');
  if (operation.secured) lines.push('Guarded by an access rule: 401 without a token, 403 when it denies.');
  return {
    signature: `${name}(${parameters.join(', ')}): Promise<${returns}>`,
    // async: a bad id or IRI rejects the promise, as a failed request does.
    implementation: `${name}: async (${names.join(', ')}) => transport.request<${returns}>(${literal(metadata.method)}, ${path}, { ${init.join(', ')} })`,
    doc: lines.join('\n'),
  };
}

/** The login method, when the document has the login route: its credentials' schema types the argument. */
function loginMethod(document: OpenApiDocument, prefix: string, loginPath: string): Method | undefined {
  const operation = document.paths[loginPath]?.post as
    | { requestBody?: { content?: Record<string, { schema: JsonSchema }> } }
    | undefined;
  const schema = operation?.requestBody?.content?.['application/json']?.schema;
  if (!schema) return undefined;
  const credentials = toTs(schema, { ref: () => 'never' }, '  ');
  return {
    signature: `login(credentials: ${credentials}, call?: RequestOptions): Promise<string>`,
    implementation: [
      'async login(credentials, call) {',
      `      const { token } = await transport.request<{ token: string }>('POST', ${literal(`${prefix}${loginPath}`)}, { body: credentials, contentType: 'application/json', options: call });`,
      '      transport.setToken(token);',
      '      return token;',
      '    }',
    ].join('\n'),
    doc: `\`POST ${prefix}${loginPath}\`: logs in and keeps the token for the next requests; resolves with it (401 on wrong credentials).`,
  };
}

export function emitClient(
  registry: MetadataRegistry,
  document: OpenApiDocument,
  operations: readonly ClientOperation[],
  types: EmittedTypes,
  names: TypeNames,
  options: ClientSourceOptions,
): string {
  const interfaces: string[] = [];
  const members: { key: string; type: string; implementation: string; doc: string }[] = [];
  const owners = new Map<ResourceMetadata, ClientOperation[]>();
  // The resource's own operations first, then its subresources.
  const ordered = [...operations].sort((a, b) => Number(a.owner !== a.resource) - Number(b.owner !== b.resource));
  for (const operation of ordered) owners.set(operation.owner, [...(owners.get(operation.owner) ?? []), operation]);

  for (const [owner, owned] of owners) {
    const taken = new Set<string>();
    const methods = owned.map((operation) => {
      let name = operation.methodName;
      // A subresource or a custom operation named like a method (`get`) or like another one keeps both reachable.
      while (taken.has(name)) name = `${name}${operation.custom ? 'Operation' : 'Collection'}`;
      taken.add(name);
      return method(operation, name, types, registry);
    });
    const type = names.claim(`${owner.name}Client`);
    interfaces.push(
      `${docComment(`\`${owner.collectionPath}\`${owner.description ? `: ${owner.description}` : ''}`)}export interface ${type} {\n${methods.map((m) => `${docComment(m.doc, '  ')}  ${m.signature};\n`).join('')}}\n`,
    );
    members.push({
      key: camelCase(owner.plural),
      type,
      implementation: `{\n${methods.map((m) => `      ${m.implementation},\n`).join('')}    }`,
      doc: owner.description ?? owner.name,
    });
  }

  const login = options.loginPath === undefined ? undefined : loginMethod(document, registry.prefix, options.loginPath);
  const imported = [
    'HydraCollection',
    ...new Set(
      operations
        .flatMap((o) => [
          o.response && types.typeOf(o.response),
          o.body && types.typeOf(o.body.component),
          types.paramsOf(o)?.name,
        ])
        .filter((n): n is string => !!n),
    ),
  ];
  const defaultBaseUrl = options.baseUrl === undefined ? 'undefined' : literal(options.baseUrl);

  return `${HEADER}
import type { ${[...new Set(imported)].sort().join(', ')} } from './types.js';
import { type ClientOptions, createTransport, type Id, type RequestOptions } from './runtime.js';

/** The server root the client calls when \`createClient\` is given no \`baseUrl\`. */
const DEFAULT_BASE_URL: string | undefined = ${defaultBaseUrl};

${interfaces.join('\n')}
/** The API: one object per resource, with the operations it has. */
export interface Client {
${members.map((m) => `${docComment(m.doc, '  ')}  readonly ${m.key}: ${m.type};\n`).join('')}${login ? `${docComment(login.doc, '  ')}  ${login.signature};\n` : ''}  /** Replaces the bearer token (a string, a function giving it, or undefined for none). */
  setToken(token: ClientOptions['token']): void;
}

/**
 * A client of the API${options.baseUrl === undefined ? ': give the server root as `baseUrl`' : ''}. Calls reject with
 * an \`ApiClientError\` for any status but 2xx.
 */
export function createClient(options: ClientOptions${options.baseUrl === undefined ? ' & { baseUrl: string }' : ' = {}'}): Client {
  const transport = createTransport(options, DEFAULT_BASE_URL);
  return {
${members.map((m) => `    ${m.key}: ${m.implementation},\n`).join('')}${login ? `    ${login.implementation},\n` : ''}    setToken: (token) => transport.setToken(token),
  };
}
`;
}
