/**
 * Unique constraints, seen whole: the fields each covers (a field's own constraint, or the resource's `fields`), and
 * the path and message of its violation. The check (`validate.ts`), the unique indexes (`desired-schema.ts`) and the
 * answer to a unique index that refused a write which passed the check (`write-errors.ts`) all read them here.
 * A case-insensitive one (`ignoreCase`, the default on an `Email()` field) compares its text columns in lower case,
 * in the check and in its index alike.
 */
import type { Constraint } from '../metadata/constraints.js';
import { formatMessage, MESSAGES } from './messages.js';

export type UniqueConstraint = Extract<Constraint, { kind: 'Unique' }>;

interface WithConstraints {
  readonly fields: readonly {
    readonly name: string;
    readonly kind?: string;
    readonly type?: string;
    readonly constraints: readonly Constraint[];
  }[];
  readonly constraints: readonly Constraint[];
}

/**
 * A Unique constraint with what it covers: its fields, and those of them compared in lower case (text fields, when it
 * ignores case).
 */
export interface CoveredUnique {
  readonly fields: readonly string[];
  readonly constraint: UniqueConstraint;
  readonly lowerCase: readonly string[];
}

const isText = (field: WithConstraints['fields'][number] | undefined): boolean =>
  field?.kind === 'scalar' && (field.type === 'string' || field.type === 'text');

/**
 * Whether a Unique constraint compares text ignoring case: its `ignoreCase`, else when it is an `Email()` field's own.
 */
export const ignoresCase = (
  constraint: UniqueConstraint,
  field?: { readonly constraints: readonly Constraint[] },
  // biome-ignore lint/complexity/useOptionalChain: false, not undefined, when there is no field (a boolean)
): boolean => constraint.ignoreCase ?? (field !== undefined && field.constraints.some((c) => c.kind === 'Email'));

/** A resource's Unique constraints with the fields each covers. */
export function collectUniqueConstraints(resource: WithConstraints): CoveredUnique[] {
  const found: CoveredUnique[] = [];
  const fieldNamed = (name: string) => resource.fields.find((f) => f.name === name);
  for (const field of resource.fields) {
    for (const c of field.constraints) {
      if (c.kind === 'Unique')
        found.push({
          fields: [field.name],
          constraint: c,
          lowerCase: ignoresCase(c, field) && isText(field) ? [field.name] : [],
        });
    }
  }
  for (const c of resource.constraints) {
    if (c.kind === 'Unique' && c.fields)
      found.push({
        fields: c.fields,
        constraint: c,
        lowerCase: ignoresCase(c) ? c.fields.filter((name) => isText(fieldNamed(name))) : [],
      });
  }
  return found;
}

/** The field lists that must be unique in a resource: one per Unique constraint. */
export const listUniqueFieldSets = (resource: WithConstraints): string[][] =>
  collectUniqueConstraints(resource).map(({ fields }) => [...fields]);

/**
 * The name of the unique index on `lower(...)` that backs a case-insensitive Unique: `<table>_<columns>_lower_unique`.
 */
export const buildLowerUniqueIndexName = (table: string, columns: readonly string[]): string =>
  `${table}_${columns.join('_')}_lower_unique`;

/**
 * The name of a unique index that only holds the live items of a soft-deleted resource (`where <deleted> is null`):
 * `<table>_<columns>_live_unique` (`_lower_live_unique` for a case-insensitive one).
 */
export const toLiveUniqueIndexName = (name: string): string => name.replace(/_unique$/, '_live_unique');

/** Where a Unique constraint's violation points: its `errorPath`, else its first field. */
export const resolveUniquePath = (constraint: UniqueConstraint, fields: readonly string[]): string =>
  constraint.errorPath ?? fields[0]!;

/** A Unique constraint's message: its own, else `This value is already used.` */
export const formatUniqueMessage = (constraint: UniqueConstraint): string =>
  formatMessage(constraint.message ?? MESSAGES.unique.message);
