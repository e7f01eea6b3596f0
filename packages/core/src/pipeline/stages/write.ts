/**
 * Stage 9, write. Hashes new passwords, then hands `context.data` to the operation's state processor; writes the
 * stored item back to `context.data` (null after a DELETE). Throws 409 on conflicts the database reports.
 */
import { hashPassword } from '../../security/password.js';
import type { OperationContext } from '../operation-context.js';

export async function write(context: OperationContext): Promise<void> {
  const { runtime, operation, resource } = context;
  const data = context.data!;
  for (const field of resource.fields) {
    if (field.kind !== 'scalar' || field.type !== 'password') continue;
    const value = data[field.name];
    // A value equal to the stored one is the stored hash, kept by PUT or PATCH: hashing it again would lose it.
    if (typeof value === 'string' && value !== context.previous?.[field.name]) data[field.name] = await hashPassword(value);
  }
  const stored = await runtime.processors.get(operation)!.process(data, {
    operation,
    resource,
    id: context.id,
    page: null,
    filters: [],
    db: runtime.database.knex,
    previous: context.previous,
  });
  context.data = stored ?? null;
}
