/**
 * Stage 1b, authenticate. Reads the Authorization header; writes `context.caller` (the user, loaded at most once per
 * request, and the effective roles). Throws 401 `invalid_token` for a token that is present but bad, on every
 * operation. Without security options every caller is anonymous.
 */
import type { OperationContext } from '../operation-context.js';

export async function authenticate(context: OperationContext): Promise<void> {
  const security = context.runtime.security;
  if (context.request.caller) {
    context.caller = context.request.caller;
    return;
  }
  if (!security) return;
  context.caller = await security.authenticate(context.request.authorization);
}
