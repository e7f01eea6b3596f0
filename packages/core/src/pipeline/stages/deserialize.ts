/**
 * Stage 6, deserialize. Reads the body and `context.previous`; writes the new state to `context.data` (with what
 * the caller adds: owner relations, the user resource's roles) and the violations found on the way (types, IRIs) to
 * `context.violations`. With an input shape, `context.data` holds the shape's values instead, and `context.previous`
 * stays the item read. Throws 400 for a body that is no JSON object.
 */
import { completeWrite } from '../../security/user-writes.js';
import { activeGroups } from '../groups.js';
import type { StageContext } from '../operation-context.js';

export async function deserialize(context: StageContext<'deserialize'>): Promise<void> {
  const { operation } = context;
  const groups = activeGroups(operation.denormalizationGroups, context);
  if (operation.input) {
    const { data, violations } = await context.runtime.denormalizer.denormalize({
      resource: operation.input,
      mode: 'create',
      body: context.request.body,
      previous: null,
      groups,
      caller: context.caller,
    });
    context.data = data;
    context.violations = violations;
    return;
  }
  const { data, violations } = await context.runtime.denormalizer.denormalize({
    resource: context.resource,
    mode: operation.writeMode!,
    body: context.request.body,
    previous: context.previous,
    groups,
    caller: context.caller,
  });
  await completeWrite({
    resource: context.resource,
    creating: operation.writeMode === 'create',
    replacing: operation.writeMode === 'replace',
    body: context.request.body,
    data,
    previous: context.previous,
    caller: context.caller,
    security: context.runtime.security?.settings ?? null,
  });
  context.data = data;
  context.violations = violations;
}
