/**
 * Stage 8, deserialize. Reads the body and `context.previous`; writes the new state to `context.data` (with what
 * the caller adds: owner relations, the user resource's roles) and the violations found on the way (types, IRIs) to
 * `context.violations`. With an input shape, `context.data` holds the shape's values instead, and `context.previous`
 * stays the item read. Throws 400 for a body that is no JSON object.
 */
import { authorizeNestedWrites, listNestedItems } from '../../security/nested-writes.js';
import { completeWrite } from '../../security/user-writes.js';
import { resolveActiveGroups } from '../groups.js';
import type { StageContext } from '../operation-context.js';

export async function deserialize(context: StageContext<'deserialize'>): Promise<void> {
  const { operation } = context;
  const groups = resolveActiveGroups(operation.denormalizationGroups, context);
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
  const { registry } = context.runtime;
  const security = context.runtime.security?.settings ?? null;
  const nested = [...listNestedItems(registry, context.resource, data, context.request.body)];
  // Items written through relations answer to their own resource's rules first (`nested-writes.ts`).
  if (nested.length > 0)
    await authorizeNestedWrites(registry, context.resource, data, context.request.body, context.caller);
  const roleViolations = await completeWrite({
    resource: context.resource,
    creating: operation.writeMode === 'create',
    replacing: operation.writeMode === 'replace',
    body: context.request.body,
    data,
    previous: context.previous,
    caller: context.caller,
    security,
  });
  // And each is completed as a request of its own would be: owner relations filled, a user's roles kept in order.
  for (const item of nested) {
    const found = await completeWrite({
      resource: item.target,
      creating: item.write.id === undefined,
      replacing: false,
      body: item.body,
      data: item.write.data,
      previous: item.write.previous,
      caller: context.caller,
      security,
      prefix: `${item.path}.`,
    });
    roleViolations.push(...found);
  }
  context.data = data;
  context.violations = [...violations, ...roleViolations];
}
