/**
 * Roles written safely. What a client writes into the user resource's roles field is checked before anything else
 * adds to it (the registration hook): each role newly given must be a declared role (else Symfony's Choice violation on
 * `roles[i]`, a 400), and, when it is a rank of the hierarchy (a role that includes others, such as `ROLE_ADMIN` or
 * `ROLE_SUPER_ADMIN`), one the caller holds themself (else 403): an admin cannot make someone a super admin. A role
 * that includes nothing (`ROLE_COMPANY`) is above no one, so whoever may write the field may give it. Roles the item
 * already held, the field's default and `ROLE_USER` are not "given".
 */
import { ApiError, type ConstraintViolation } from '../errors.js';
import type { AccessRule } from '../metadata/declared.js';
import type { MetadataRegistry } from '../metadata/types.js';
import { MESSAGES } from '../validation/messages.js';
import { createViolation } from '../validation/violation.js';

/** `is_granted(...)` attributes that are not roles (`access.ts`). */
const ATTRIBUTES = new Set([
  'IS_AUTHENTICATED_FULLY',
  'IS_AUTHENTICATED_REMEMBERED',
  'IS_AUTHENTICATED',
  'PUBLIC_ACCESS',
  'IS_ANONYMOUS',
]);
const IS_GRANTED = /is_granted\(\s*(['"])([^'"]+)\1\s*\)/g;

/** The roles an expression rule names in `is_granted('…')`; a function rule names none that can be read. */
const rolesNamedIn = (rule: AccessRule | undefined): string[] =>
  typeof rule === 'string'
    ? [...rule.matchAll(IS_GRANTED)].map((m) => m[2]!).filter((name) => !ATTRIBUTES.has(name))
    : [];

/**
 * The roles a user's roles field may hold: the `declaredRoles` option when given; else `ROLE_USER`, every role the
 * hierarchy names (as a key or as an included role), and every role an expression rule names.
 */
export function collectDeclaredRoles(
  listed: readonly string[] | undefined,
  hierarchy: Readonly<Record<string, readonly string[]>>,
  registry: MetadataRegistry,
): ReadonlySet<string> {
  if (listed) return new Set(['ROLE_USER', ...listed]);
  const roles = new Set(['ROLE_USER']);
  for (const [role, included] of Object.entries(hierarchy)) for (const name of [role, ...included]) roles.add(name);
  for (const resource of registry.resources) {
    for (const operation of resource.operations)
      for (const name of [
        ...rolesNamedIn(operation.security?.rule),
        ...rolesNamedIn(operation.securityPostDenormalize?.rule),
      ])
        roles.add(name);
    for (const field of resource.fields) {
      for (const name of rolesNamedIn(field.security)) roles.add(name);
      if (field.kind === 'toMany') for (const name of rolesNamedIn(field.subresource?.security)) roles.add(name);
    }
  }
  return roles;
}

const strings = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((r): r is string => typeof r === 'string') : [];

/**
 * Checks the roles a write gives: returns the Choice violations of undeclared ones (`roles[1]`), and throws 403 for a
 * rank of the hierarchy the caller does not hold. `written` is the field's new value as the body left it.
 */
export function checkRoleWrites(options: {
  readonly written: unknown;
  /** The roles the item held (update), or null (create). */
  readonly held: unknown;
  readonly defaults: unknown;
  readonly declared: ReadonlySet<string>;
  /** The role hierarchy: its keys are the ranks, given only by those who hold them. */
  readonly hierarchy: Readonly<Record<string, readonly string[]>>;
  /** The caller's effective roles (the hierarchy applied). */
  readonly callerRoles: readonly string[];
  /** The property path of the roles field (`roles`, `owner.roles`). */
  readonly path: string;
}): ConstraintViolation[] {
  if (!Array.isArray(options.written)) return [];
  const kept = new Set(['ROLE_USER', ...strings(options.held), ...strings(options.defaults)]);
  const violations: ConstraintViolation[] = [];
  const above: string[] = [];
  options.written.forEach((role, index) => {
    if (typeof role !== 'string' || kept.has(role)) return;
    if (!options.declared.has(role))
      violations.push(
        createViolation(`${options.path}[${index}]`, MESSAGES.noSuchChoice.message, MESSAGES.noSuchChoice.code),
      );
    else if (Object.hasOwn(options.hierarchy, role) && !options.callerRoles.includes(role) && !above.includes(role))
      above.push(role);
  });
  if (violations.length === 0 && above.length > 0) {
    const list = above.map((r) => `"${r}"`).join(', ');
    throw new ApiError(
      'FORBIDDEN',
      `${options.path}: You cannot grant ${list}: a role can only be given by someone who holds it.`,
    );
  }
  return violations;
}
