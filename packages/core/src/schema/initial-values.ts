/**
 * The value a field starts with on create when the body gives none: its default (`'now'`: the current date or
 * time), null, or an empty list. Pure: reads metadata only. The denormalizer fills a new item with it, and
 * `provisionUser` the account it creates.
 */
import type { FieldMetadata, ScalarFieldMetadata } from '../metadata/types.js';

/** Today's date in UTC, `YYYY-MM-DD`. */
const today = (): string => new Date().toISOString().slice(0, 10);

function resolveDefault(field: ScalarFieldMetadata): unknown {
  if (field.default === 'now') return field.type === 'date' ? today() : new Date();
  if (field.default === undefined) return null;
  if (field.type === 'datetime' && typeof field.default === 'string') return new Date(field.default);
  return structuredClone(field.default);
}

/** The value a field starts with on create when the body gives none: its default, null, or an empty list. */
export const resolveInitialValue = (field: FieldMetadata): unknown =>
  field.kind === 'scalar' ? resolveDefault(field) : field.kind === 'toMany' ? [] : null;
