/**
 * Stage 10, validate. Reads `context.data`, `context.violations` and the operation's validation groups (fixed, or a
 * function of the object and the user); throws the 400 ConstraintViolationList when anything is wrong, so nothing is
 * written. A `restore` checks the item's Unique constraints only.
 */
import { validateEntity, validateUniqueness } from '../../validation/validate.js';
import type { After, RequestScope } from '../operation-context.js';
import { verifyPassword } from '../../security/password.js';

/** Whether `value` is the caller's password: the stored hash of the user resource's password field. */
async function isUserPassword(context: RequestScope, value: string): Promise<boolean> {
  const { user } = context.caller;
  const field = context.runtime.security?.settings.password;
  const stored = user && field ? user[field] : undefined;
  return typeof stored === 'string' && (await verifyPassword(value, stored));
}

function validationGroups(context: After<'deserialize'>): ReadonlySet<string> {
  const { operation } = context;
  const declared = operation.validationGroups;
  if (typeof declared !== 'function') return new Set(declared);
  return new Set(
    declared({
      operation: { kind: operation.kind as never, resource: operation.resource, name: operation.name },
      user: context.caller.user,
      roles: context.caller.roles,
      object: context.data!,
      previousObject: context.previous,
    }),
  );
}

export async function validate(context: After<'deserialize'>): Promise<void> {
  const { input, restores } = context.operation;
  // A restore brings a stored item back among the live ones: only another live item holding its unique values can
  // stand in the way (its other constraints held when it was written).
  if (restores)
    return validateUniqueness({
      resource: context.resource,
      data: context.data!,
      id: context.id,
      isUnique: context.runtime.isUnique,
    });
  await validateEntity({
    registry: context.runtime.registry,
    // An input shape's values are checked against the shape's constraints; there is no stored item to compare with.
    resource: input ?? context.resource,
    data: context.data!,
    previous: input ? null : context.previous,
    id: input || context.operation.writeMode === 'create' ? undefined : context.id,
    earlier: context.violations,
    groups: validationGroups(context),
    user: context.caller.user,
    isUnique: context.runtime.isUnique,
    isUserPassword: (value) => isUserPassword(context, value),
  });
}
