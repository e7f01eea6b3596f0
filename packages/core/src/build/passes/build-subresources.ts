/**
 * Pass 7: subresource operations. A to-many relation marked `subresource` gives its target a read-only collection
 * operation at `/api/<parents>/{id}/<field>`, and deeper (`/api/authors/{id}/books/{books}/reviews`) as far as
 * `maxDepth` allows. The operation takes the target collection's pagination, groups and provider, so the target's
 * settings apply wherever its collection is served.
 */
import { findBuiltinOperation } from '../../metadata/builtin-operation.js';
import type { ResourceDeclaration } from '../../declare/types.js';
import { toSnakeCase } from '../../metadata/naming.js';
import type {
  OperationMetadata,
  PaginationOptions,
  ResourceMetadata,
  SubresourceStep,
  ToManyFieldMetadata,
} from '../../metadata/types.js';
import { NO_HOOKS, resolveGroups, resolvePagination, resolveRule } from './build-operations.js';

export function buildSubresources(
  resources: readonly ResourceMetadata[],
  declarations: ReadonlyMap<string, ResourceDeclaration>,
  pagination: PaginationOptions,
  prefix: string,
): Map<string, OperationMetadata[]> {
  const byName = new Map(resources.map((r) => [r.name, r]));
  const added = new Map<string, OperationMetadata[]>();

  function visit(parent: ResourceMetadata, path: string, steps: readonly SubresourceStep[], remaining: number): void {
    for (const field of parent.fields) {
      if (field.kind !== 'toMany' || !field.subresource) continue;
      const depth = Math.min(remaining, field.subresource.maxDepth);
      if (depth < 1) continue;
      // The parent's id: `{id}` first, then the field that led here (`{books}`), numbered when a name repeats.
      const base = steps.length === 0 ? 'id' : steps[steps.length - 1]!.field;
      const used = new Set(steps.map((s) => s.variable));
      let variable = base;
      for (let n = 2; used.has(variable); n++) variable = `${base}${n}`;
      const chain = [...steps, { resource: parent.name, field: field.name, variable }];
      const uriTemplate = `${path}/{${variable}}/${field.name}`;
      const target = byName.get(field.target)!;
      const list = added.get(target.name) ?? [];
      list.push(
        subresourceOperation(target, declarations.get(target.name)!, field, chain, uriTemplate, { pagination, prefix }),
      );
      added.set(target.name, list);
      if (depth > 1) visit(target, `${path}/{${variable}}/${field.name}`, chain, depth - 1);
    }
  }
  for (const resource of resources) visit(resource, resource.collectionPath, [], Number.POSITIVE_INFINITY);
  return added;
}

function subresourceOperation(
  target: ResourceMetadata,
  declaration: ResourceDeclaration,
  field: ToManyFieldMetadata,
  steps: readonly SubresourceStep[],
  uriTemplate: string,
  settings: { pagination: PaginationOptions; prefix: string },
): OperationMetadata {
  const { pagination } = settings;
  // The target's own collection operation, when it has one, lends its settings.
  const collection = findBuiltinOperation(target, 'getCollection');
  const declared = (declaration.operations ?? []).find((o) => typeof o === 'object' && o.kind === 'getCollection');
  const layers = [declaration, ...(typeof declared === 'object' ? [declared] : [])];
  const where = `Resource "${target.name}", subresource "${steps[0]!.resource}.${steps.map((s) => s.field).join('.')}"`;
  const owner = steps[steps.length - 1]!.resource;
  return {
    kind: 'getSubresource',
    customName: null,
    uriVariables: steps.map((step) => step.variable),
    input: null,
    output: null,
    writeMode: null,
    hooks: NO_HOOKS,
    // `api_` + the path's fixed segments after the prefix, as the other operations are named.
    name: `api_${uriTemplate
      .slice(settings.prefix.length)
      .split('/')
      .filter((part) => part && !part.startsWith('{'))
      .map(toSnakeCase)
      .join('_')}_get_subresource`,
    resource: target.name,
    method: 'GET',
    uriTemplate,
    collection: true,
    description: `Retrieves the ${field.name} of a ${owner} resource.`,
    status: 200,
    stages: { read: true, deserialize: false, validate: false, write: false, serialize: true },
    inputFormats: [],
    pagination: collection?.pagination ?? resolvePagination(pagination, layers, where),
    normalizationGroups: collection?.normalizationGroups ?? resolveGroups(layers, 'normalizationGroups', where),
    denormalizationGroups: null,
    validationGroups: ['Default'],
    // The subresource's own rule (checked at declaration, as every rule is), else the target collection's.
    security:
      field.subresource?.security !== undefined
        ? resolveRule([field.subresource], 'security', where)
        : (collection?.security ?? resolveRule(layers, 'security', where)),
    securityPostDenormalize: null,
    subresource: steps,
    restores: false,
    provider: collection?.provider ?? declaration.provider,
    processor: undefined,
    mercure: null,
    // The target collection's, as its rule: a subresource shows the same items.
    cacheHeaders: collection?.cacheHeaders ?? null,
  };
}
