/**
 * Stages 4, 6 and 9, authorize (before the read, after the read, after the body), and the listing of a soft-deleted
 * resource's deleted items, once the parameters are read. The operation's `security` rule runs before the read when
 * there is no item to read (collections, POST) — and, for anonymous callers, before any read at all, so a protected
 * item is a 401 whether or not it exists, unless the rule looks at the item (`object.published == true`): then it runs
 * after the read, and a missing item is that same 401. Otherwise it runs after the read, with the item as `object`.
 * `securityPostDenormalize` runs after the body is applied, with the new state as `object` and the stored one as
 * `previousObject`: a payload that hands an item to someone else is refused before anything is written. Denied: 401
 * for anonymous callers, 403 with the message. Items written through relations run their own resource's rules too
 * (`security/nested-writes.ts`: `security` from the deserialize stage, `securityPostDenormalize` here).
 */
import type { Entity } from '../../metadata/types.js';
import { createDenialError, enforce, mayReadObject, type RuleScope } from '../../security/access.js';
import { readsDeletedItems } from '../../query/filters/soft-delete-filter.js';
import { authorizeNestedStates, listNestedItems } from '../../security/nested-writes.js';
import type { After, RequestScope, StageContext } from '../operation-context.js';

const scope = (context: RequestScope, object: Entity | null, previousObject: Entity | null): RuleScope => ({
  object,
  previousObject,
  request: { method: context.request.method, path: context.request.path },
});

const readsItem = (context: RequestScope) => context.operation.stages.read && !context.operation.collection;

export function authorizeBeforeRead(context: StageContext<'authorize'>): Promise<void> | void {
  const { security } = context.operation;
  if (!security) return;
  if (readsItem(context)) {
    if (context.caller.user !== null) return; // checked with the item, after the read
    if (mayReadObject(security.rule)) {
      // Anonymous, and the item may grant the call: the read decides, and a missing item is the rule's denial.
      context.missingItem = createDenialError(security, context.caller);
      return;
    }
  }
  return enforce(security, context.caller, scope(context, null, null));
}

/**
 * A collection read asking for the deleted items of a soft-deleted resource (`?deleted=true`, read by the parameters
 * stage): the resource's `list` rule must grant it, whoever the caller (401 anonymous, 403 with its message).
 */
export function authorizeDeletedListing(context: StageContext<'authorize'>): Promise<void> | void {
  const softDelete = context.resource.softDelete;
  if (!softDelete?.list || !readsDeletedItems(softDelete.filter, context.filters)) return;
  return enforce(softDelete.list, context.caller, scope(context, null, null));
}

export function authorizeAfterRead(context: After<'read'>): Promise<void> | void {
  if (!readsItem(context) || !context.operation.security) return;
  return enforce(context.operation.security, context.caller, scope(context, context.previous, null));
}

export function authorizeAfterDeserialize(context: After<'deserialize'>): Promise<void> | void {
  // A body that is already refused (wrong types, bad IRIs, a null where a value is required) is a 400 from the
  // validate stage, whatever the rule would say of the half-applied state: nothing is written either way.
  if (!context.operation.stages.deserialize || context.violations.length > 0) return;
  const own = enforce(
    context.operation.securityPostDenormalize,
    context.caller,
    scope(context, context.data, context.previous),
  );
  // Items written through relations: their own resource's post-denormalize rules too (`nested-writes.ts`).
  if (
    context.operation.input ||
    listNestedItems(context.runtime.registry, context.resource, context.data!, undefined).next().done
  )
    return own;
  return (async () => {
    await own;
    await authorizeNestedStates(
      context.runtime.registry,
      context.resource,
      context.data!,
      context.request.body,
      context.caller,
    );
  })();
}
