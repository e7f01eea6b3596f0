/**
 * Stage 8, validate. Reads `context.data`, `context.violations` and the operation's validation groups (fixed, or a
 * function of the object and the user); throws the 400 ConstraintViolationList when anything is wrong, so nothing is
 * written.
 */
import { validateEntity } from '../../validation/validate.js';
import type { OperationContext } from '../operation-context.js';

function validationGroups(context: OperationContext): ReadonlySet<string> {
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

export async function validate(context: OperationContext): Promise<void> {
  await validateEntity({
    registry: context.runtime.registry,
    resource: context.resource,
    data: context.data!,
    previous: context.previous,
    id: context.operation.kind === 'post' ? undefined : context.id,
    earlier: context.violations,
    groups: validationGroups(context),
    user: context.caller.user,
    isUnique: context.runtime.isUnique,
  });
}
