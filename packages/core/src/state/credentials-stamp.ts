/**
 * The framework's per-user "tokens valid after" instant: a column of its own on the table of every resource that holds
 * a `password` field (`resource_api_tokens_valid_after`, milliseconds since the epoch). The built-in processor sets it
 * when such an item is created, and when its password or roles are written with a new value; a bearer or refresh token
 * issued before it is refused. Kept on the user's row, it is read with the user on every request (no extra query) and
 * a user deleted and created again under the same id gets a new one.
 *
 * The value rides on the entities read as a non-enumerable symbol property: serializers, spreads and comparisons of
 * items never see it, and it is never written back from an entity (only the processor sets it).
 */
import type { Entity, ResourceMetadata } from '../metadata/types.js';
import { RESERVED_COLUMN_PREFIX } from '../metadata/reserved-names.js';

/** The column; the reserved prefix keeps it apart from every declared column. */
export const TOKENS_VALID_AFTER_COLUMN = `${RESERVED_COLUMN_PREFIX}tokens_valid_after`;

/**
 * The instant the framework created the item itself (`app.resourceApi.provisionUser`, e.g. a first admin from the
 * environment); null for every item created otherwise (a registration). Never written from a request.
 */
export const PROVISIONED_AT_COLUMN = `${RESERVED_COLUMN_PREFIX}provisioned_at`;

const TOKENS_VALID_AFTER = Symbol('resource-api tokens valid after');

/** Resources whose items are credentials: they have a `password` field (the user resource must). */
export const holdsCredentials = (resource: ResourceMetadata): boolean =>
  resource.stored && resource.fields.some((field) => field.kind === 'scalar' && field.type === 'password');

/** Sets the instant read from the row on the entity (hidden from everything but `readTokensValidAfter`). */
export function attachTokensValidAfter(entity: Entity, value: unknown): void {
  Object.defineProperty(entity, TOKENS_VALID_AFTER, {
    value: value === null || value === undefined ? null : Number(value),
    enumerable: false,
  });
}

/**
 * The instant before which the user's tokens are refused, in ms; null when none is recorded (a row written outside the
 * framework).
 */
export const readTokensValidAfter = (entity: Entity): number | null =>
  (entity as Record<symbol, number | null | undefined>)[TOKENS_VALID_AFTER] ?? null;

/**
 * The fields whose change revokes the item's tokens: its password fields, and the roles field of the user resource.
 * `previous` undefined (a processor of the user's that did not say what the item was): any such field given counts.
 */
export function changesCredentials(
  fields: readonly string[],
  data: Entity,
  previous: Entity | null | undefined,
): boolean {
  for (const name of fields) {
    if (!(name in data)) continue;
    if (!previous) return true;
    if (!sameValue(data[name], previous[name])) return true;
  }
  return false;
}

/** Roles compare as sets (stored without duplicates, ROLE_USER added); other values as they are. */
function sameValue(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) && Array.isArray(b)) {
    const left = new Set(a);
    const right = new Set(b);
    return left.size === right.size && [...left].every((value) => right.has(value));
  }
  return a === b;
}
