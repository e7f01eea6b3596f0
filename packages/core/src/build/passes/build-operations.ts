/**
 * Pass 5: the operations of a resource, with their method, URI template, stable name, success status, body formats
 * and the stages they run. Stages are decided here once, never per request.
 */
import type {
  GroupsOptions,
  AccessRuleOptions,
  OperationDeclaration,
  PaginationDeclaration,
  ResourceDeclaration,
} from '../../declare/types.js';
import { DeclarationError } from '../../errors.js';
import type { OperationKind } from '../../metadata/declared.js';
import { formatDidYouMean } from '../../metadata/did-you-mean.js';
import { checkExpression } from '../../security/expression.js';
import type {
  AccessRuleMetadata,
  HooksMetadata,
  HttpMethod,
  OperationMetadata,
  OperationStages,
  PaginationMetadata,
  PaginationOptions,
  WriteHook,
  WriteHooks,
} from '../../metadata/types.js';
import { WRITE_MODES } from '../../schema/input-schema.js';
import { toSnakeCase } from '../../metadata/naming.js';
import type { ShapeBuilder } from './build-shapes.js';
import { buildOperationMercure, type MercureOption } from './build-mercure.js';
import { buildOperationCacheHeaders, type CacheHeadersOption } from '../../http-cache/cache-headers.js';

export const OPERATION_KINDS: readonly OperationKind[] = ['getCollection', 'post', 'get', 'put', 'patch', 'delete'];
export const PAGINATION_KEYS = [
  'paginationEnabled',
  'paginationItemsPerPage',
  'paginationMaximumItemsPerPage',
  'paginationClientEnabled',
  'paginationClientItemsPerPage',
  'paginationPartial',
  'paginationClientPartial',
  'paginationViaCursor',
  'paginationType',
] as const;
export const GROUPS_KEYS = ['normalizationGroups', 'denormalizationGroups', 'validationGroups'] as const;
export const SECURITY_KEYS = [
  'security',
  'securityMessage',
  'securityPostDenormalize',
  'securityPostDenormalizeMessage',
] as const;
const OPERATION_KEYS = [
  'kind',
  'name',
  'uriTemplate',
  'input',
  'output',
  'status',
  'hooks',
  'description',
  'provider',
  'processor',
  'mercure',
  'cacheHeaders',
  ...PAGINATION_KEYS,
  ...GROUPS_KEYS,
  ...SECURITY_KEYS,
];

/** An access rule of an operation: its own, else its resource's; with its denial message. */
export function resolveRule(
  layers: readonly AccessRuleOptions[],
  key: 'security' | 'securityPostDenormalize',
  where: string,
): AccessRuleMetadata | null {
  const messageKey = key === 'security' ? 'securityMessage' : 'securityPostDenormalizeMessage';
  // An operation's rule replaces the resource's, message included.
  const layer = [...layers].reverse().find((l) => l[key] !== undefined);
  if (!layer) return null;
  const rule = layer[key]!;
  if (typeof rule !== 'string' && typeof rule !== 'function')
    throw new DeclarationError(`${where}: "${key}" must be an expression string or a function.`);
  if (typeof rule === 'string') checkExpression(rule, `${where}, ${key}`);
  return { rule, message: layer[messageKey] ?? 'Access Denied.' };
}

/** Groups of an operation: its own, else its resource's, else none. Checked: a list of names or a function. */
export function resolveGroups<K extends (typeof GROUPS_KEYS)[number]>(
  layers: readonly GroupsOptions[],
  key: K,
  where: string,
): NonNullable<GroupsOptions[K]> | null {
  let found: NonNullable<GroupsOptions[K]> | null = null;
  for (const layer of layers) if (layer[key] !== undefined) found = layer[key]!;
  if (
    found !== null &&
    typeof found !== 'function' &&
    (!Array.isArray(found) || found.some((g) => typeof g !== 'string'))
  ) {
    throw new DeclarationError(`${where}: "${key}" must be a list of group names or a function returning one.`);
  }
  return found;
}

/** Pagination resolved global → resource → operation, checked. */
export function resolvePagination(
  global: PaginationOptions,
  layers: readonly PaginationDeclaration[],
  where: string,
): PaginationMetadata {
  const pick = <K extends keyof PaginationDeclaration>(key: K): PaginationDeclaration[K] =>
    layers.reduce<PaginationDeclaration[K]>(
      (value, layer) => (layer[key] === undefined ? value : layer[key]),
      undefined,
    );
  const resolved: PaginationMetadata = {
    ...global,
    enabled: pick('paginationEnabled') ?? global.enabled,
    itemsPerPage: pick('paginationItemsPerPage') ?? global.itemsPerPage,
    maximumItemsPerPage: pick('paginationMaximumItemsPerPage') ?? global.maximumItemsPerPage,
    clientEnabled: pick('paginationClientEnabled') ?? global.clientEnabled,
    clientItemsPerPage: pick('paginationClientItemsPerPage') ?? global.clientItemsPerPage,
    partial: pick('paginationPartial') ?? global.partial,
    clientPartial: pick('paginationClientPartial') ?? global.clientPartial,
    cursor: pick('paginationViaCursor') ?? null,
    type: pick('paginationType') ?? 'cursor',
  };
  if (resolved.type !== 'cursor' && resolved.type !== 'page')
    throw new DeclarationError(`${where}: paginationType must be "cursor" or "page".`);
  for (const key of ['itemsPerPage', 'maximumItemsPerPage'] as const) {
    if (!Number.isInteger(resolved[key]) || resolved[key] < 1)
      throw new DeclarationError(
        `${where}: pagination ${key} must be a positive integer, ${String(resolved[key])} given.`,
      );
  }
  if (resolved.itemsPerPage > resolved.maximumItemsPerPage) {
    throw new DeclarationError(
      `${where}: pagination itemsPerPage (${resolved.itemsPerPage}) is above maximumItemsPerPage (${resolved.maximumItemsPerPage}).`,
    );
  }
  if (resolved.cursor && resolved.cursor.direction !== 'asc' && resolved.cursor.direction !== 'desc') {
    throw new DeclarationError(`${where}: paginationViaCursor direction must be "asc" or "desc".`);
  }
  return resolved;
}

const JSON_FORMATS = ['application/ld+json', 'application/json'];
const MULTIPART = 'multipart/form-data';

/** Whether a resource has a file field a client writes: its POST then also takes `multipart/form-data` bodies. */
const takesUploads = (declaration: ResourceDeclaration): boolean =>
  Object.values(declaration.fields ?? {}).some(
    (field) => 'type' in field && field.type === 'file' && (field as { writable?: boolean }).writable !== false,
  );

interface KindTraits {
  method: HttpMethod;
  collection: boolean;
  status: number;
  suffix: string;
  stages: OperationStages;
  inputFormats: readonly string[];
  describe: (name: string) => string;
}

const stages = (read: boolean, deserialize: boolean, write: boolean, serialize: boolean): OperationStages => ({
  read,
  deserialize,
  validate: deserialize,
  write,
  serialize,
});

/** Everything that follows from an operation's kind, in one table. */
const TRAITS: Record<OperationKind, KindTraits> = {
  getCollection: {
    method: 'GET',
    collection: true,
    status: 200,
    suffix: 'get_collection',
    stages: stages(true, false, false, true),
    inputFormats: [],
    describe: (n) => `Retrieves the collection of ${n} resources.`,
  },
  post: {
    method: 'POST',
    collection: true,
    status: 201,
    suffix: 'post',
    stages: stages(false, true, true, true),
    inputFormats: JSON_FORMATS,
    describe: (n) => `Creates a ${n} resource.`,
  },
  get: {
    method: 'GET',
    collection: false,
    status: 200,
    suffix: 'id_get',
    stages: stages(true, false, false, true),
    inputFormats: [],
    describe: (n) => `Retrieves a ${n} resource.`,
  },
  put: {
    method: 'PUT',
    collection: false,
    status: 200,
    suffix: 'id_put',
    stages: stages(true, true, true, true),
    inputFormats: JSON_FORMATS,
    describe: (n) => `Replaces the ${n} resource.`,
  },
  patch: {
    method: 'PATCH',
    collection: false,
    status: 200,
    suffix: 'id_patch',
    stages: stages(true, true, true, true),
    inputFormats: ['application/merge-patch+json', ...JSON_FORMATS],
    describe: (n) => `Updates the ${n} resource.`,
  },
  delete: {
    method: 'DELETE',
    collection: false,
    status: 204,
    suffix: 'id_delete',
    stages: stages(true, false, true, false),
    inputFormats: [],
    describe: (n) => `Removes the ${n} resource.`,
  },
};

/** What `buildOperations` needs beside the declaration. */
export interface OperationsContext {
  readonly collectionPath: string;
  readonly plural: string;
  readonly pagination: PaginationOptions;
  /** The route prefix (`/api`): custom URI templates are under it. */
  readonly prefix: string;
  /** Builds (once) the shapes operations name as input or output. */
  readonly shapes: ShapeBuilder;
  /**
   * The `restore` operation a soft-deleted resource's `softDelete.restore` declares (`build-soft-delete.ts`), or null:
   * built after the declared ones, as any custom operation, and marked `restores`.
   */
  readonly restore: OperationDeclaration | null;
}

/** A custom operation's URI template: `/articles/{id}/publish`, literal segments and `{variable}`s. */
const TEMPLATE = /^(\/([A-Za-z0-9_.~-]+|\{[A-Za-z_][A-Za-z0-9_]*\}))+$/;

/** `{id}` → `id`, in order. */
const variablesOf = (template: string): string[] => [...template.matchAll(/\{(\w+)\}/g)].map((match) => match[1]!);

export function buildOperations(declaration: ResourceDeclaration, context: OperationsContext): OperationMetadata[] {
  const { collectionPath, plural } = context;
  const listed = declaration.operations ?? OPERATION_KINDS;
  if (!Array.isArray(listed))
    throw new DeclarationError(`Resource "${declaration.name}": "operations" must be an array.`);
  const declared = context.restore ? [...listed, context.restore] : listed;
  const seen = new Set<OperationKind>();
  const customNames = new Set<string>();
  return declared.map((entry: OperationKind | OperationDeclaration) => {
    const options: OperationDeclaration = typeof entry === 'string' ? { kind: entry } : entry;
    if (options === null || typeof options !== 'object')
      throw new DeclarationError(
        `Resource "${declaration.name}": an operation must be a kind name or an object with "kind".`,
      );
    const custom = options.name !== undefined || options.uriTemplate !== undefined;
    const where = custom
      ? `Resource "${declaration.name}", operation "${String(options.name ?? options.uriTemplate)}"`
      : `Resource "${declaration.name}", operation "${String(options.kind)}"`;
    if (!OPERATION_KINDS.includes(options.kind)) {
      throw new DeclarationError(
        `${where}: unknown operation kind.${formatDidYouMean(String(options.kind), OPERATION_KINDS)} Known kinds: ${OPERATION_KINDS.join(', ')}.`,
      );
    }
    for (const key of Object.keys(options)) {
      if (!OPERATION_KEYS.includes(key))
        throw new DeclarationError(`${where}: unknown option "${key}".${formatDidYouMean(key, OPERATION_KEYS)}`);
    }
    const misplaced = PAGINATION_KEYS.find(
      (key) => options.kind !== 'getCollection' && (options as PaginationDeclaration)[key] !== undefined,
    );
    if (misplaced)
      throw new DeclarationError(`${where}: "${misplaced}" applies to the collection operation (getCollection) only.`);
    const traits = TRAITS[options.kind];
    const shared = {
      kind: options.kind,
      resource: declaration.name,
      method: traits.method,
      pagination:
        options.kind === 'getCollection' ? resolvePagination(context.pagination, [declaration, options], where) : null,
      normalizationGroups: resolveGroups([declaration, options], 'normalizationGroups', where),
      denormalizationGroups: resolveGroups([declaration, options], 'denormalizationGroups', where),
      validationGroups: resolveGroups([declaration, options], 'validationGroups', where) ?? ['Default'],
      security: resolveRule([declaration, options], 'security', where),
      securityPostDenormalize: resolveRule([declaration, options], 'securityPostDenormalize', where),
      subresource: null,
      restores: options === context.restore,
      hooks: resolveHooks([declaration.hooks, options.hooks], where),
      provider: options.provider ?? declaration.provider,
      processor: options.processor ?? declaration.processor,
      mercure: buildOperationMercure(
        options.kind,
        { resource: declaration.mercure as MercureOption, operation: options.mercure as MercureOption },
        where,
      ),
      cacheHeaders: buildOperationCacheHeaders(
        {
          resource: declaration.cacheHeaders as CacheHeadersOption,
          operation: options.cacheHeaders as CacheHeadersOption,
        },
        where,
      ),
    };
    assertComponent(options.provider, 'provide', 'provider', where);
    assertComponent(options.processor, 'process', 'processor', where);
    if (custom) {
      const operation = buildCustomOperation(options, { ...context, where, resource: declaration.name });
      if (customNames.has(operation.customName!))
        throw new DeclarationError(`${where}: another custom operation of "${declaration.name}" has this name.`);
      customNames.add(operation.customName!);
      // A restore reads no body, yet validates: the item's Unique constraints against the live items.
      const stages = shared.restores ? { ...operation.stages, validate: true } : operation.stages;
      return withShapeGroups({ ...shared, ...operation, stages });
    }
    if (seen.has(options.kind)) {
      throw new DeclarationError(
        `${where}: declared twice. A second "${options.kind}" is a custom operation: give it a "name" and its own "uriTemplate".`,
      );
    }
    seen.add(options.kind);
    for (const key of ['status'] as const) {
      if (options[key] !== undefined)
        throw new DeclarationError(`${where}: "${key}" is for custom operations (with "name" and "uriTemplate").`);
    }
    const input =
      options.input === undefined || options.input === false
        ? null
        : context.shapes.shapeOf(options.input, `${where}, input`);
    const output =
      options.output === undefined || options.output === false
        ? null
        : context.shapes.shapeOf(options.output, `${where}, output`);
    if (options.input !== undefined && !traits.stages.deserialize)
      throw new DeclarationError(`${where}: a ${options.kind} reads no body, so it takes no "input".`);
    const deserialize = traits.stages.deserialize && options.input !== false;
    const serialize = traits.stages.serialize && options.output !== false;
    return withShapeGroups({
      ...shared,
      customName: null,
      name: `api_${plural}_${traits.suffix}`,
      uriTemplate: traits.collection ? collectionPath : `${collectionPath}/{id}`,
      uriVariables: traits.collection ? [] : ['id'],
      collection: traits.collection,
      description: options.description ?? traits.describe(declaration.name),
      status: serialize ? traits.status : 204,
      stages: { ...traits.stages, deserialize, validate: deserialize, serialize },
      inputFormats: !deserialize
        ? []
        : options.kind === 'post' && !input && takesUploads(declaration)
          ? [MULTIPART, ...traits.inputFormats]
          : traits.inputFormats,
      input,
      output,
      writeMode: deserialize && !input ? WRITE_MODES[options.kind as keyof typeof WRITE_MODES] : null,
    });
  });
}

/**
 * A shape is the operation's own type: when none of its fields names a group, the operation's groups (often its
 * resource's, inherited) do not filter it: every field of an input shape is read, every field of an output shape
 * sent. A shape that uses groups is filtered by them, as a resource is.
 */
function withShapeGroups(operation: OperationMetadata): OperationMetadata {
  const ungrouped = (shape: OperationMetadata['input']) => shape?.fields.every((field) => field.groups.length === 0);
  return {
    ...operation,
    normalizationGroups: ungrouped(operation.output) ? null : operation.normalizationGroups,
    denormalizationGroups: ungrouped(operation.input) ? null : operation.denormalizationGroups,
  };
}

type CustomParts = Pick<
  OperationMetadata,
  | 'customName'
  | 'name'
  | 'uriTemplate'
  | 'uriVariables'
  | 'collection'
  | 'description'
  | 'status'
  | 'stages'
  | 'inputFormats'
  | 'input'
  | 'output'
  | 'writeMode'
>;

/** What a custom operation adds to what every operation resolves: its path, stages, shapes and status. */
function buildCustomOperation(
  options: OperationDeclaration,
  context: OperationsContext & { where: string; resource: string },
): CustomParts {
  const { where, resource, prefix } = context;
  const { name, uriTemplate, kind } = options;
  if (typeof name !== 'string' || !/^[a-z][A-Za-z0-9]*$/.test(name)) {
    throw new DeclarationError(
      `${where}: a custom operation needs a "name" in camelCase (e.g. "publish")${name === undefined ? ' beside its "uriTemplate"' : ''}.`,
    );
  }
  if (typeof uriTemplate !== 'string')
    throw new DeclarationError(
      `${where}: a custom operation needs a "uriTemplate" (e.g. "/${context.plural}/{id}/${name}").`,
    );
  if (!TEMPLATE.test(uriTemplate)) {
    throw new DeclarationError(
      `${where}: uriTemplate "${uriTemplate}" must be a path under the prefix made of segments and {variables}, e.g. "/${context.plural}/{id}/${name}".`,
    );
  }
  const variables = variablesOf(uriTemplate);
  const twice = variables.find((variable, index) => variables.indexOf(variable) !== index);
  if (twice) throw new DeclarationError(`${where}: uriTemplate "${uriTemplate}" names {${twice}} twice.`);
  const itemLevel = variables.includes('id');
  // {id} is the resource's identifier, read by any provider. Any other variable means something only to the
  // operation's own provider or processor, which read it from `context.uriVariables`.
  const own = variables.filter((variable) => variable !== 'id');
  if (own.length > 0 && !options.provider && !options.processor) {
    throw new DeclarationError(
      `${where}: uriTemplate "${uriTemplate}": nothing resolves {${own[0]}}. The built-in provider knows {id} (the ${resource}'s identifier).${formatDidYouMean(own[0]!, ['id'])} Declare a "provider" or "processor" of the operation to read other variables from context.uriVariables.`,
    );
  }
  const traits = TRAITS[kind];
  const reads = kind === 'getCollection' || itemLevel || (kind === 'get' && options.provider !== undefined);
  if (kind === 'get' && !reads) {
    throw new DeclarationError(
      `${where}: a "get" reads an item: its uriTemplate needs {id}, or the operation a "provider" of its own.`,
    );
  }
  if (kind === 'delete' && !itemLevel)
    throw new DeclarationError(`${where}: a "delete" removes an item: its uriTemplate needs {id}.`);
  if (options.input !== undefined && !traits.stages.deserialize && options.input !== false) {
    throw new DeclarationError(
      `${where}: a ${kind} reads no body, so it takes no "input" (build it on "post", "put" or "patch").`,
    );
  }
  const input =
    options.input === undefined || options.input === false
      ? null
      : context.shapes.shapeOf(options.input, `${where}, input`);
  const output =
    options.output === undefined || options.output === false
      ? null
      : context.shapes.shapeOf(options.output, `${where}, output`);
  const deserialize = traits.stages.deserialize && options.input !== false;
  const serialize = options.output !== false && (kind !== 'delete' || output !== null);
  const creates = kind === 'post' && !itemLevel;
  const status = options.status ?? (!serialize ? 204 : creates && !output ? 201 : 200);
  if (!Number.isInteger(status) || status < 200 || status > 299)
    throw new DeclarationError(`${where}: "status" must be a 2xx status code, ${String(status)} given.`);
  if (status === 204 && serialize)
    throw new DeclarationError(`${where}: status 204 sends no body; declare "output: false" too.`);
  const local = uriTemplate
    .replace(/[{}]/g, '')
    .split('/')
    .filter(Boolean)
    .map((segment) => toSnakeCase(segment).replace(/[^A-Za-z0-9_]/g, '_'))
    .join('_');
  return {
    customName: name,
    name: `api_${local}_${traits.method.toLowerCase()}`,
    uriTemplate: `${prefix}${uriTemplate}`,
    uriVariables: variables,
    collection: kind === 'getCollection' || creates,
    description: options.description ?? `The "${name}" operation of the ${resource} resource.`,
    status,
    stages: { read: reads, deserialize, validate: deserialize, write: traits.stages.write, serialize },
    inputFormats: deserialize ? traits.inputFormats : [],
    input,
    output,
    writeMode: deserialize && !input ? (kind === 'put' ? 'replace' : itemLevel ? 'update' : 'create') : null,
  };
}

/** A provider or processor: an object with the method the contract names. */
function assertComponent(value: unknown, method: string, key: string, where: string): void {
  if (value === undefined) return;
  if (value === null || typeof value !== 'object' || typeof (value as Record<string, unknown>)[method] !== 'function') {
    throw new DeclarationError(`${where}: "${key}" must be an object with a ${method}() method.`);
  }
}

const HOOK_NAMES = ['beforeWrite', 'afterWrite', 'afterCommit'] as const;

/** The write hooks of an operation: each layer's (resource, then operation), checked, in the order they run. */
export function resolveHooks(layers: readonly (WriteHooks | undefined)[], where: string): HooksMetadata {
  const hooks: Record<(typeof HOOK_NAMES)[number], WriteHook[]> = { beforeWrite: [], afterWrite: [], afterCommit: [] };
  for (const layer of layers) {
    if (layer === undefined) continue;
    if (layer === null || typeof layer !== 'object')
      throw new DeclarationError(`${where}: "hooks" must be an object ({ beforeWrite, afterWrite, afterCommit }).`);
    for (const key of Object.keys(layer)) {
      if (!(HOOK_NAMES as readonly string[]).includes(key))
        throw new DeclarationError(
          `${where}: unknown hook "${key}".${formatDidYouMean(key, HOOK_NAMES)} Hooks: ${HOOK_NAMES.join(', ')}.`,
        );
    }
    for (const name of HOOK_NAMES) {
      const value = layer[name];
      if (value === undefined) continue;
      const list = Array.isArray(value) ? value : [value];
      if (list.some((hook) => typeof hook !== 'function'))
        throw new DeclarationError(`${where}: hook "${name}" must be a function or a list of functions.`);
      hooks[name].push(...(list as WriteHook[]));
    }
  }
  return hooks;
}

/** No hook at all: what subresources and most operations have. */
export const NO_HOOKS: HooksMetadata = Object.freeze({ beforeWrite: [], afterWrite: [], afterCommit: [] });
