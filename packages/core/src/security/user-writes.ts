/**
 * What the caller and the user resource add to a new state, after the body is applied: relations filled with the
 * caller (`currentUser`), and, for the user resource itself, roles stored with `ROLE_USER` and without duplicates,
 * after the registration hook had its say on create.
 */
import type { ResourceMetadata } from '../metadata/types.js';
import type { Entity } from '../state/contracts.js';
import type { Caller } from './access.js';
import type { ResolvedSecurity } from './config.js';
import { storedRoles } from './roles.js';

export async function completeWrite(options: {
  readonly resource: ResourceMetadata;
  readonly creating: boolean;
  /** The body applied: a `currentUser: 'default'` relation left out of it (POST, PUT) takes the caller. */
  readonly body: unknown;
  /** PUT replaces every writable field: a left-out field goes back to its default, here the caller. */
  readonly replacing: boolean;
  readonly data: Entity;
  readonly previous: Entity | null;
  readonly caller: Caller;
  readonly security: ResolvedSecurity | null;
}): Promise<void> {
  const { resource, creating, data, previous, caller, security } = options;
  const given = (name: string) => options.body !== null && typeof options.body === 'object' && Object.hasOwn(options.body, name);
  for (const field of resource.fields) {
    if (field.kind !== 'toOne' || !field.currentUser) continue;
    if (field.currentUser === 'always') data[field.name] = creating ? (caller.user?.id ?? null) : (previous?.[field.name] ?? null);
    // 'default': the caller unless the body names someone (an explicit null stays null, and is refused as such).
    else if ((creating || options.replacing) && !given(field.name)) data[field.name] = caller.user?.id ?? null;
  }
  if (!security || security.resource !== resource) return;
  if (creating && security.onRegister) {
    data[security.roles] = storedRoles(data[security.roles] as unknown[]);
    await security.onRegister(data, { caller: caller.user, callerRoles: caller.roles });
  }
  data[security.roles] = storedRoles(data[security.roles] as unknown[]);
}
