/**
 * Stage 2, authenticate. Reads the Authorization header; writes `context.caller` (the user, loaded at most once per
 * request, and the effective roles). Throws 401 `invalid_token` for a token that is present but bad, on every
 * operation. Without security options every caller is anonymous.
 */
import type { RequestScope } from '../operation-context.js';

export function authenticate(context: RequestScope): Promise<void> | void {
  const security = context.runtime.security;
  if (context.request.caller) {
    context.caller = context.request.caller;
    return;
  }
  if (!security) return;
  // Without a token the authenticator answers at once (anonymous): nothing to wait for.
  const caller = security.authenticate(context.request.authorization);
  if (!(caller instanceof Promise)) {
    context.caller = caller;
    return;
  }
  return caller.then((checked) => {
    context.caller = checked;
  });
}
