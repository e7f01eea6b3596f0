/** Roles: the stored list made effective — the hierarchy applied, `ROLE_USER` always there, no duplicates. */

/** The roles a user holds, with every role the hierarchy gives. */
export function resolveEffectiveRoles(
  stored: readonly unknown[] | null | undefined,
  hierarchy: Readonly<Record<string, readonly string[]>>,
): string[] {
  const roles = new Set<string>(['ROLE_USER']);
  const pending = [...(stored ?? []).filter((r): r is string => typeof r === 'string')];
  while (pending.length > 0) {
    const role = pending.pop()!;
    if (roles.has(role) && role !== 'ROLE_USER') continue;
    roles.add(role);
    for (const included of hierarchy[role] ?? []) if (!roles.has(included)) pending.push(included);
  }
  return [...roles];
}

/** The list to store: the client's or the hook's roles, `ROLE_USER` added, duplicates removed, order kept. */
export const toStoredRoles = (roles: readonly unknown[] | null | undefined): string[] => [
  ...new Set(['ROLE_USER', ...(roles ?? []).filter((r): r is string => typeof r === 'string')]),
];
