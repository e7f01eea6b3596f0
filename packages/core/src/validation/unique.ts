/**
 * Unique constraints, seen whole: the fields each covers (a field's own constraint, or the resource's `fields`), and
 * the path and message of its violation. The check (`validate.ts`), the unique indexes (`desired-schema.ts`) and the
 * answer to a unique index that refused a write which passed the check (`write-errors.ts`) all read them here.
 */
import type { Constraint } from './constraints.js';
import { formatMessage, MESSAGES } from './messages.js';

export type UniqueConstraint = Extract<Constraint, { kind: 'Unique' }>;

interface WithConstraints {
  readonly fields: readonly { readonly name: string; readonly constraints: readonly Constraint[] }[];
  readonly constraints: readonly Constraint[];
}

/** A resource's Unique constraints with the fields each covers. */
export function uniqueConstraints(resource: WithConstraints): { fields: readonly string[]; constraint: UniqueConstraint }[] {
  const found: { fields: readonly string[]; constraint: UniqueConstraint }[] = [];
  for (const field of resource.fields) for (const c of field.constraints) if (c.kind === 'Unique') found.push({ fields: [field.name], constraint: c });
  for (const c of resource.constraints) if (c.kind === 'Unique' && c.fields) found.push({ fields: c.fields, constraint: c });
  return found;
}

/** The field lists that must be unique in a resource: one per Unique constraint. */
export const uniqueFieldSets = (resource: WithConstraints): string[][] => uniqueConstraints(resource).map(({ fields }) => [...fields]);

/** Where a Unique constraint's violation points: its `errorPath`, else its first field. */
export const uniquePath = (constraint: UniqueConstraint, fields: readonly string[]): string => constraint.errorPath ?? fields[0]!;

/** A Unique constraint's message: its own, else `This value is already used.` */
export const uniqueMessage = (constraint: UniqueConstraint): string => formatMessage(constraint.message ?? MESSAGES.unique.message);
