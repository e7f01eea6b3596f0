/**
 * Stage 9, write. Hashes new passwords (nested items' too), then hands `context.data` to the operation's state
 * processor (with `context.expected`, the item an If-Match held against); writes the stored item back to
 * `context.data` (null after a DELETE). Throws 409 on conflicts the database reports, 412 when the item changed since
 * the If-Match was checked.
 */
import type { MetadataRegistry, ResourceMetadata } from '../../metadata/types.js';
import { hashPassword } from '../../security/password.js';
import { type Entity, NestedWrite } from '../../state/contracts.js';
import type { OperationContext } from '../operation-context.js';

/**
 * Replaces every new password by its hash. A value equal to the stored one is that hash, kept by an update that left
 * the password out: hashing it again would lose the password. Any other value is the client's, hashed even when it
 * looks like a hash (it is the password its owner will type), but for an empty one on an update.
 */
async function hashNewPasswords(registry: MetadataRegistry, resource: ResourceMetadata, data: Entity, previous: Entity | null): Promise<void> {
  for (const field of resource.fields) {
    const value = data[field.name];
    if (value instanceof NestedWrite) await hashNewPasswords(registry, registry.resource(value.resource), value.data, value.previous);
    else if (field.kind === 'scalar' && field.type === 'password' && typeof value === 'string' && value !== previous?.[field.name]) {
      // An empty password on an update is none (as API Platform's hashing processor): the stored one stays.
      const stored = previous?.[field.name];
      data[field.name] = value === '' && typeof stored === 'string' ? stored : await hashPassword(value);
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
