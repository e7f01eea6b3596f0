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
  readonly data: Entity;
  readonly previous: Entity | null;
  readonly caller: Caller;
  readonly security: ResolvedSecurity | null;
}): Promise<void> {
  const { resource, creating, data, previous, caller, security } = options;
  for (const field of resource.fields) {
    if (field.kind !== 'toOne' || !field.currentUser) continue;
    if (creating) {
      if (field.currentUser === 'always' || data[field.name] === null || data[field.name] === undefined) data[field.name] = caller.user?.id ?? null;
    } else if (field.currentUser === 'always') {
      data[field.name] = previous?.[field.name] ?? null;
    }
  }
  if (!security || security.resource !== resource) return;
  if (creating && security.onRegister) {
    data[security.roles] = storedRoles(data[security.roles] as unknown[]);
    await security.onRegister(data, { caller: caller.user, callerRoles: caller.roles });
  }
  data[security.roles] = storedRoles(data[security.roles] as unknown[]);
}
