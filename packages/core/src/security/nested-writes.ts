/**
 * Nested writes under the target's own rules. A nested object that creates an item of another resource (cascade
 * persist) or updates one (an `@id`, or a merge patch into the item a relation holds) is a write of that resource:
 * it runs the rules the resource's own operation would, with the request's caller — POST's to create, PATCH's (else
 * PUT's) to update; `security` with the stored item (none on create), `securityPostDenormalize` with the new state
 * and the stored one — as if it were a request of its own. Without that, any public resource with a cascading relation
 * was a way around the target's rules. A target with no such operation is written through a relation only when the
 * relation says so (`nestedWithoutOperation`). Denied: 403 naming the property (401 for an anonymous caller, who may
 * log in), before anything is written.
 */
import { ApiError } from '../errors.js';
import {
  type Entity,
  type MetadataRegistry,
  NestedWrite,
  type OperationMetadata,
  type ResourceMetadata,
  type ToOneFieldMetadata,
} from '../metadata/types.js';
import { buildIri } from '../metadata/iri.js';
import { type Caller, createDenialError, grants, type RuleScope } from './access.js';
import type { AccessRuleMetadata } from '../metadata/types.js';

/**
 * One item written through a relation: where it sits (`box.vault`), the relation, and the part of the body it came
 * from.
 */
export interface NestedItem {
  readonly path: string;
  readonly field: ToOneFieldMetadata;
  readonly target: ResourceMetadata;
  readonly write: NestedWrite;
  /** The nested object of the request body (what the client sent for it), or undefined. */
  readonly body: unknown;
}

const child = (body: unknown, name: string): unknown =>
  body !== null && typeof body === 'object' && !Array.isArray(body) && Object.hasOwn(body, name)
    ? (body as Record<string, unknown>)[name]
    : undefined;

/** The items written through the relations of `data`, at any depth, each before the ones nested in it. */
export function* listNestedItems(
  registry: MetadataRegistry,
  resource: ResourceMetadata,
  data: Entity,
  body: unknown,
  prefix = '',
): Generator<NestedItem> {
  for (const field of resource.fields) {
    const value = data[field.name];
    if (field.kind !== 'toOne' || !(value instanceof NestedWrite)) continue;
    const target = registry.resource(value.resource);
    const nestedBody = child(body, field.name);
    yield { path: prefix + field.name, field, target, write: value, body: nestedBody };
    yield* listNestedItems(registry, target, value.data, nestedBody, `${prefix}${field.name}.`);
  }
}

const builtin = (resource: ResourceMetadata, kind: OperationMetadata['kind']) =>
  resource.operations.find((o) => o.kind === kind && o.customName === null);

/** The operation whose rules a nested write runs: the target's POST to create, its PATCH (else PUT) to update. */
const operationFor = (item: NestedItem): OperationMetadata | undefined =>
  item.write.id === undefined
    ? builtin(item.target, 'post')
    : (builtin(item.target, 'patch') ?? builtin(item.target, 'put'));

/** The denial of a rule, its detail prefixed with the property (`vault: Access Denied.`). */
function nestedDenial(rule: AccessRuleMetadata, caller: Caller, path: string): ApiError {
  const base = createDenialError(rule, caller);
  return new ApiError(caller.user === null ? 'UNAUTHENTICATED' : 'FORBIDDEN', `${path}: ${base.message}`, {
    headers: { ...base.headers },
  });
}

async function enforceAt(
  rule: AccessRuleMetadata | null,
  caller: Caller,
  scope: RuleScope,
  path: string,
): Promise<void> {
  if (rule && !(await grants(rule.rule, caller, scope))) throw nestedDenial(rule, caller, path);
}

const requestOf = (item: NestedItem, operation: OperationMetadata) => ({
  method: operation.method,
  path: item.write.id === undefined ? item.target.collectionPath : buildIri(item.target, item.write.id),
});

/**
 * Before the nested items are completed and validated: each needs an operation of its target (or a relation that
 * allows none), and that operation's `security` must grant the caller, with the stored item as `object`.
 */
export async function authorizeNestedWrites(
  registry: MetadataRegistry,
  resource: ResourceMetadata,
  data: Entity,
  body: unknown,
  caller: Caller,
): Promise<void> {
  for (const item of listNestedItems(registry, resource, data, body)) {
    const operation = operationFor(item);
    if (!operation) {
      if (item.field.nestedWithoutOperation) continue;
      const creating = item.write.id === undefined;
      throw new ApiError(
        'FORBIDDEN',
        `${item.path}: "${item.target.name}" items cannot be ${creating ? 'created' : 'changed'} through "${item.field.name}": "${item.target.name}" has no ${creating ? 'POST' : 'PATCH or PUT'} operation whose access rules would apply (set nestedWithoutOperation on the relation to allow it).`,
      );
    }
    const previous = item.write.previous;
    await enforceAt(
      operation.security,
      caller,
      { object: previous, previousObject: null, request: requestOf(item, operation) },
      item.path,
    );
  }
}

/** Once the body is applied: each nested item's `securityPostDenormalize`, with its new state and its stored one. */
export async function authorizeNestedStates(
  registry: MetadataRegistry,
  resource: ResourceMetadata,
  data: Entity,
  body: unknown,
  caller: Caller,
): Promise<void> {
  for (const item of listNestedItems(registry, resource, data, body)) {
    const operation = operationFor(item);
    if (!operation) continue;
    await enforceAt(
      operation.securityPostDenormalize,
      caller,
      { object: item.write.data, previousObject: item.write.previous, request: requestOf(item, operation) },
      item.path,
    );
  }
}
