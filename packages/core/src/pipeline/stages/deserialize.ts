/**
 * Stage 6, deserialize. Reads the body and `context.previous`; writes the new state to `context.data` (with what
 * the caller adds: owner relations, the user resource's roles) and the violations found on the way (types, IRIs) to
 * `context.violations`. Throws 400 for a body that is no JSON object.
 */
import { completeWrite } from '../../security/user-writes.js';
import { activeGroups } from '../groups.js';
import type { OperationContext } from '../operation-context.js';
import { WRITE_MODES } from '../../schema/input-schema.js';

export async function deserialize(context: OperationContext): Promise<void> {
  const { data, violations } = await context.runtime.denormalizer.denormalize({
    resource: context.resource,
    mode: WRITE_MODES[context.operation.kind as keyof typeof WRITE_MODES],
    body: context.request.body,
    previous: context.previous,
    groups: activeGroups(context.operation.denormalizationGroups, context),
    caller: context.caller,
  });
  await completeWrite({
    resource: context.resource,
    creating: context.operation.kind === 'post',
    replacing: context.operation.kind === 'put',
    body: context.request.body,
    data,
    previous: context.previous,
    caller: context.caller,
    security: context.runtime.security?.settings ?? null,
  });
  context.data = data;
  context.violations = violations;
}
