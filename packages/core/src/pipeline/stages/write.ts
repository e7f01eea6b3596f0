/**
 * Stage 9, write. Hashes new passwords (nested items' too), then hands `context.data` to the operation's state
 * processor (with `context.expected`, the item an If-Match held against); writes the stored item back to
 * `context.data` (null after a DELETE). Throws 409 on conflicts the database reports, 412 when the item changed since
 * the If-Match was checked.
 */
import type { MetadataRegistry, ResourceMetadata } from '../../metadata/types.js';
import { hashPassword, isPasswordHash } from '../../security/password.js';
import { type Entity, NestedWrite } from '../../state/contracts.js';
import type { OperationContext } from '../operation-context.js';

/** Replaces every new password (one that is not the stored hash) by its hash. */
async function hashNewPasswords(registry: MetadataRegistry, resource: ResourceMetadata, data: Entity, previous: Entity | null): Promise<void> {
  for (const field of resource.fields) {
    const value = data[field.name];
    if (value instanceof NestedWrite) await hashNewPasswords(registry, registry.resource(value.resource), value.data, null);
    // A value equal to the stored one (or any stored hash, on nested updates) is kept: hashing a hash would lose it.
    else if (field.kind === 'scalar' && field.type === 'password' && typeof value === 'string' && value !== previous?.[field.name] && !isPasswordHash(value)) {
      data[field.name] = await hashPassword(value);
    }
  }
}

export async function write(context: OperationContext): Promise<void> {
  const { runtime, operation, resource } = context;
  const data = context.data!;
  if (operation.kind !== 'delete') await hashNewPasswords(runtime.registry, resource, data, context.previous);
  const stored = await runtime.processors.get(operation)!.process(data, {
    operation,
    resource,
    id: context.id,
    page: null,
    filters: [],
    parents: [],
    db: runtime.database.knex,
    previous: context.previous,
    // If-Match held against `previous`: the processor writes only if the item is still unchanged (412 otherwise).
    ...(context.expected ? { expected: context.expected } : {}),
  });
  context.data = stored ?? null;
}
