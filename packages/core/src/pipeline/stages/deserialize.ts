/**
 * Stage 6, deserialize. Reads the body and `context.previous`; writes the new state to `context.data` and the
 * violations found on the way (types, IRIs) to `context.violations`. Throws 400 for a body that is no JSON object.
 */
import type { OperationContext } from '../operation-context.js';

export async function deserialize(context: OperationContext): Promise<void> {
  const { data, violations } = await context.runtime.denormalizer.denormalize({
    resource: context.resource,
    operation: context.operation,
    body: context.request.body,
    previous: context.previous,
  });
  context.data = data;
  context.violations = violations;
}
