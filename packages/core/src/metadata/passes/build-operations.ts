/**
 * Pass 5: the operations of a resource, with their method, URI template, stable name, success status, body formats
 * and the stages they run. Stages are decided here once, never per request.
 */
import type { GroupsOptions, SecurityOptions, OperationDeclaration, OperationKind, PaginationDeclaration, ResourceDeclaration } from '../../declare/types.js';
import type { PaginationOptions } from '../../query/pagination.js';
import { DeclarationError } from '../../errors.js';
import { didYouMean } from '../did-you-mean.js';
import { checkExpression } from '../../security/expression.js';
import type { AccessRuleMetadata, HttpMethod, OperationMetadata, OperationStages, PaginationMetadata } from '../types.js';

export const OPERATION_KINDS: readonly OperationKind[] = ['getCollection', 'post', 'get', 'put', 'patch', 'delete'];
export const PAGINATION_KEYS = [
  'paginationEnabled', 'paginationItemsPerPage', 'paginationMaximumItemsPerPage', 'paginationClientEnabled',
  'paginationClientItemsPerPage', 'paginationPartial', 'paginationClientPartial', 'paginationViaCursor', 'paginationType',
] as const;
export const GROUPS_KEYS = ['normalizationGroups', 'denormalizationGroups', 'validationGroups'] as const;
export const SECURITY_KEYS = ['security', 'securityMessage', 'securityPostDenormalize', 'securityPostDenormalizeMessage'] as const;
const OPERATION_KEYS = ['kind', 'description', 'provider', 'processor', ...PAGINATION_KEYS, ...GROUPS_KEYS, ...SECURITY_KEYS];

/** An access rule of an operation: its own, else its resource's; with its denial message. */
export function resolveRule(
  layers: readonly SecurityOptions[],
  key: 'security' | 'securityPostDenormalize',
  where: string,
): AccessRuleMetadata | null {
  const messageKey = key === 'security' ? 'securityMessage' : 'securityPostDenormalizeMessage';
  // An operation's rule replaces the resource's, message included.
  const layer = [...layers].reverse().find((l) => l[key] !== undefined);
  if (!layer) return null;
  const rule = layer[key]!;
  if (typeof rule !== 'string' && typeof rule !== 'function') throw new DeclarationError(`${where}: "${key}" must be an expression string or a function.`);
  if (typeof rule === 'string') checkExpression(rule, `${where}, ${key}`);
  return { rule, message: layer[messageKey] ?? 'Access Denied.' };
}

/** Groups of an operation: its own, else its resource's, else none. Checked: a list of names or a function. */
export function resolveGroups<K extends (typeof GROUPS_KEYS)[number]>(layers: readonly GroupsOptions[], key: K, where: string): NonNullable<GroupsOptions[K]> | null {
  let found: NonNullable<GroupsOptions[K]> | null = null;
  for (const layer of layers) if (layer[key] !== undefined) found = layer[key]!;
  if (found !== null && typeof found !== 'function' && (!Array.isArray(found) || found.some((g) => typeof g !== 'string'))) {
    throw new DeclarationError(`${where}: "${key}" must be a list of group names or a function returning one.`);
  }
  return found;
}

/** Pagination resolved global → resource → operation, checked. */
export function resolvePagination(global: PaginationOptions, layers: readonly PaginationDeclaration[], where: string): PaginationMetadata {
  const pick = <K extends keyof PaginationDeclaration>(key: K): PaginationDeclaration[K] =>
    layers.reduce<PaginationDeclaration[K]>((value, layer) => (layer[key] === undefined ? value : layer[key]), undefined);
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
  if (resolved.type !== 'cursor' && resolved.type !== 'page') throw new DeclarationError(`${where}: paginationType must be "cursor" or "page".`);
  for (const key of ['itemsPerPage', 'maximumItemsPerPage'] as const) {
    if (!Number.isInteger(resolved[key]) || resolved[key] < 1) throw new DeclarationError(`${where}: pagination ${key} must be a positive integer, ${String(resolved[key])} given.`);
  }
  if (resolved.itemsPerPage > resolved.maximumItemsPerPage) {
    throw new DeclarationError(`${where}: pagination itemsPerPage (${resolved.itemsPerPage}) is above maximumItemsPerPage (${resolved.maximumItemsPerPage}).`);
  }
  if (resolved.cursor && resolved.cursor.direction !== 'asc' && resolved.cursor.direction !== 'desc') {
    throw new DeclarationError(`${where}: paginationViaCursor direction must be "asc" or "desc".`);
  }
  return resolved;
}

const JSON_FORMATS = ['application/ld+json', 'application/json'];

interface KindTraits {
  method: HttpMethod;
  collection: boolean;
  status: 200 | 201 | 204;
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
  getCollection: { method: 'GET', collection: true, status: 200, suffix: 'get_collection', stages: stages(true, false, false, true), inputFormats: [], describe: (n) => `Retrieves the collection of ${n} resources.` },
  post: { method: 'POST', collection: true, status: 201, suffix: 'post', stages: stages(false, true, true, true), inputFormats: JSON_FORMATS, describe: (n) => `Creates a ${n} resource.` },
  get: { method: 'GET', collection: false, status: 200, suffix: 'id_get', stages: stages(true, false, false, true), inputFormats: [], describe: (n) => `Retrieves a ${n} resource.` },
  put: { method: 'PUT', collection: false, status: 200, suffix: 'id_put', stages: stages(true, true, true, true), inputFormats: JSON_FORMATS, describe: (n) => `Replaces the ${n} resource.` },
  patch: { method: 'PATCH', collection: false, status: 200, suffix: 'id_patch', stages: stages(true, true, true, true), inputFormats: ['application/merge-patch+json', ...JSON_FORMATS], describe: (n) => `Updates the ${n} resource.` },
  delete: { method: 'DELETE', collection: false, status: 204, suffix: 'id_delete', stages: stages(true, false, true, false), inputFormats: [], describe: (n) => `Removes the ${n} resource.` },
};

export function buildOperations(
  declaration: ResourceDeclaration,
  context: { collectionPath: string; plural: string; pagination: PaginationOptions },
): OperationMetadata[] {
  const { collectionPath, plural } = context;
  const declared = declaration.operations ?? OPERATION_KINDS;
  if (!Array.isArray(declared)) throw new DeclarationError(`Resource "${declaration.name}": "operations" must be an array.`);
  const seen = new Set<OperationKind>();
  return declared.map((entry: OperationKind | OperationDeclaration) => {
    const options: OperationDeclaration = typeof entry === 'string' ? { kind: entry } : entry;
    const where = `Resource "${declaration.name}", operation "${String(options?.kind)}"`;
    if (options === null || typeof options !== 'object') throw new DeclarationError(`Resource "${declaration.name}": an operation must be a kind name or an object with "kind".`);
    if (!OPERATION_KINDS.includes(options.kind)) {
      throw new DeclarationError(`${where}: unknown operation kind.${didYouMean(String(options.kind), OPERATION_KINDS)} Known kinds: ${OPERATION_KINDS.join(', ')}.`);
    }
    for (const key of Object.keys(options)) {
      if (!OPERATION_KEYS.includes(key)) throw new DeclarationError(`${where}: unknown option "${key}".${didYouMean(key, OPERATION_KEYS)}`);
    }
    if (seen.has(options.kind)) throw new DeclarationError(`${where}: declared twice.`);
    const misplaced = PAGINATION_KEYS.find((key) => options.kind !== 'getCollection' && (options as PaginationDeclaration)[key] !== undefined);
    if (misplaced) throw new DeclarationError(`${where}: "${misplaced}" applies to the collection operation (getCollection) only.`);
    seen.add(options.kind);
    const traits = TRAITS[options.kind];
    return {
      kind: options.kind,
      name: `api_${plural}_${traits.suffix}`,
      resource: declaration.name,
      method: traits.method,
      uriTemplate: traits.collection ? collectionPath : `${collectionPath}/{id}`,
      collection: traits.collection,
      description: options.description ?? traits.describe(declaration.name),
      status: traits.status,
      stages: traits.stages,
      inputFormats: traits.inputFormats,
      pagination: options.kind === 'getCollection' ? resolvePagination(context.pagination, [declaration, options], where) : null,
      normalizationGroups: resolveGroups([declaration, options], 'normalizationGroups', where),
      denormalizationGroups: resolveGroups([declaration, options], 'denormalizationGroups', where),
      validationGroups: resolveGroups([declaration, options], 'validationGroups', where) ?? ['Default'],
      security: resolveRule([declaration, options], 'security', where),
      securityPostDenormalize: resolveRule([declaration, options], 'securityPostDenormalize', where),
      subresource: null,
      provider: options.provider ?? declaration.provider,
      processor: options.processor ?? declaration.processor,
    };
  });
}
