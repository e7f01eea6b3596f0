/**
 * Serialization groups as the read and write sides, the documents and GraphQL all use them: a declaration's fixed
 * groups as a set (null: every field), and whether a field is in them. One definition, so that what a caller may see
 * or write is decided the same way everywhere.
 */
import type { FieldMetadata, OperationMetadata } from './types.js';

/** Groups in force: a set, or null when none are declared (every field). */
export type GroupSet = ReadonlySet<string> | null;

/**
 * An operation's fixed groups as a set; null when it declares none, or chooses them per request with a function (the
 * documents and GraphQL's types then count every field; a request resolves the function: `pipeline/groups.ts`).
 */
export function toFixedGroups(declaration: OperationMetadata['normalizationGroups'] | undefined): GroupSet {
  return Array.isArray(declaration) ? new Set(declaration as readonly string[]) : null;
}

/** Whether `field` is in `groups` (every field is, when no groups are in force). */
export function isInGroups(field: FieldMetadata, groups: GroupSet): boolean {
  return groups === null || field.groups.some((group) => groups.has(group));
}
