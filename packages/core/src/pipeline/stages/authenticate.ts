/**
 * Stage 1b, authenticate. Reads the Authorization header; writes `context.caller` (the user, loaded at most once per
 * request, and the effective roles). Throws 401 `invalid_token` for a token that is present but bad, on every
 * operation. Without security options every caller is anonymous.
 */
import type { OperationContext } from '../operation-context.js';

export function authenticate(context: OperationContext): Promise<void> | void {
  const security = context.runtime.security;
  if (context.request.caller) {
    context.caller = context.request.caller;
    return;
  }
  // No token: the caller stays anonymous, with nothing to wait for (the authenticator says the same of no token).
  if (!security || !context.request.authorization) return;
  return security.authenticate(context.request.authorization).then((caller) => {
    context.caller = caller;
  });
}
