/**
 * What the caller and the user resource add to a new state, after the body is applied: relations filled with the
 * caller (`currentUser`), and, for the user resource itself, the roles the body gives checked (`role-writes.ts`:
 * declared ones only, and ones the caller holds), then stored with `ROLE_USER` and without duplicates, after the
 * registration hook had its say on create. Returns the violations of undeclared roles.
 */
import type { Entity, ResourceMetadata } from '../metadata/types.js';
import type { Caller } from './access.js';
import type { ResolvedSecurity } from './config.js';
import { checkRoleWrites } from './role-writes.js';
import type { ConstraintViolation } from '../errors.js';
import { toStoredRoles } from './roles.js';

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
  /** Where the item sits in the body: '' for the item itself, `owner.` for one written through a relation. */
  readonly prefix?: string;
}): Promise<ConstraintViolation[]> {
  const { resource, creating, data, previous, caller, security } = options;
  const given = (name: string) =>
    options.body !== null && typeof options.body === 'object' && Object.hasOwn(options.body, name);
  for (const field of resource.fields) {
    // An empty password on an update is none (as API Platform's hashing processor; the write stage keeps the stored
    // one): taken out before validation, so a length rule judges only a password actually given.
    if (
      field.kind === 'scalar' &&
      field.type === 'password' &&
      !creating &&
      data[field.name] === '' &&
      typeof previous?.[field.name] === 'string'
    ) {
      data[field.name] = previous[field.name];
    }
    if (field.kind !== 'toOne' || !field.currentUser) continue;
    if (field.currentUser === 'always')
      data[field.name] = creating ? (caller.user?.id ?? null) : (previous?.[field.name] ?? null);
    // 'default': the caller unless the body names someone (an explicit null stays null, and is refused as such).
    else if ((creating || options.replacing) && !given(field.name)) data[field.name] = caller.user?.id ?? null;
  }
  if (!security || security.resource !== resource) return [];
  const rolesField = resource.fieldsByName.get(security.roles);
  const violations = checkRoleWrites({
    written: data[security.roles],
    held: previous?.[security.roles] ?? null,
    defaults: rolesField?.kind === 'scalar' ? rolesField.default : undefined,
    declared: security.declaredRoles,
    hierarchy: security.roleHierarchy,
    callerRoles: caller.roles,
    path: (options.prefix ?? '') + security.roles,
  });
  if (creating && security.onRegister) {
    data[security.roles] = toStoredRoles(data[security.roles] as unknown[]);
    await security.onRegister(data, { caller: caller.user, callerRoles: caller.roles });
  }
  data[security.roles] = toStoredRoles(data[security.roles] as unknown[]);
  return violations;
}
