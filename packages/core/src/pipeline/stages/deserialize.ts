/**
 * Stage 6, deserialize. Reads the body and `context.previous`; writes the new state to `context.data` and the
 * violations found on the way (types, IRIs) to `context.violations`. Throws 400 for a body that is no JSON object.
 */
import { activeGroups } from '../groups.js';
import type { OperationContext } from '../operation-context.js';

const MODES = { post: 'create', put: 'replace', patch: 'update' } as const;

export async function deserialize(context: OperationContext): Promise<void> {
  const { data, violations } = await context.runtime.denormalizer.denormalize({
    resource: context.resource,
    mode: MODES[context.operation.kind as keyof typeof MODES],
    body: context.request.body,
    previous: context.previous,
    groups: activeGroups(context.operation.denormalizationGroups, context),
  });
  context.data = data;
  context.violations = violations;
}
