/** Turning query-string values into typed filter values; anything unusable is a 400 naming the parameter. */
import { ID_FIELD, type ResolvedPath } from '../../metadata/property-path.js';
import { buildFieldInputSchema } from '../../schema/input-schema.js';
import { toIriPath } from '../../metadata/iri.js';
import { parseItemId } from '../../metadata/identifier.js';
import type { IdentifierMetadata, ItemId } from '../../metadata/types.js';
import { invalidParameter } from '../filter.js';

const NUMBER = /^-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/i;

export type Leaf = ResolvedPath['leaf'];

/** Integer columns hold 32 bits (PostgreSQL's `integer`), as request bodies do: larger values would fail in SQL. */
const INT32 = { min: -2_147_483_648, max: 2_147_483_647 };

export function toNumber(variable: string, raw: string, integer: boolean): number {
  const value = Number(raw);
  if (!NUMBER.test(raw.trim()) || !Number.isFinite(value))
    throw invalidParameter(variable, `expected a number, "${raw}" given.`);
  if (integer && !Number.isInteger(value)) throw invalidParameter(variable, `expected an integer, "${raw}" given.`);
  if (integer && (value < INT32.min || value > INT32.max)) {
    throw invalidParameter(variable, `expected an integer between ${INT32.min} and ${INT32.max}, "${raw}" given.`);
  }
  return value;
}

export function toBoolean(variable: string, raw: string): boolean {
  const value = raw.toLowerCase();
  if (value === 'true' || value === '1') return true;
  if (value === 'false' || value === '0') return false;
  throw invalidParameter(variable, `expected "true" or "false", "${raw}" given.`);
}

/**
 * A date (`YYYY-MM-DD`) for date fields, or a Date for date-time fields; a date-time without offset is UTC. Days that
 * do not exist (`2021-02-30`, which JavaScript would turn into March 2) are refused, and so is the year 0 for date
 * fields (PostgreSQL's `date` has no year 0).
 */
export function toDateValue(variable: string, raw: string, leaf: Leaf): string | Date {
  const text = raw.trim();
  const invalid = () => invalidParameter(variable, `expected a date or date-time (ISO 8601), "${raw}" given.`);
  if (!DATE.test(text) && !DATE_TIME.test(text)) throw invalid();
  const day = text.slice(0, 10);
  const midnight = new Date(`${day}T00:00:00Z`);
  if (Number.isNaN(midnight.getTime()) || midnight.toISOString().slice(0, 10) !== day) throw invalid();
  const hasZone = /(Z|[+-]\d{2}:?\d{2})$/i.test(text);
  const parsed = new Date(DATE.test(text) ? `${text}T00:00:00Z` : hasZone ? text : `${text}Z`);
  if (Number.isNaN(parsed.getTime())) throw invalid();
  if (leaf.kind === 'scalar' && leaf.type === 'date') {
    const date = parsed.toISOString().slice(0, 10);
    if (date.startsWith('0000') || date.startsWith('-')) throw invalid();
    return date;
  }
  return parsed;
}

/** What a reference filter value must name: an item of this collection, with ids of this type. */
export interface ReferenceTarget {
  readonly collectionPath: string;
  readonly identifier: IdentifierMetadata;
}

/** An id from `3` (or a UUID) or an item IRI of the target collection (`/api/authors/3`). */
export function toReference(variable: string, raw: string, { collectionPath, identifier }: ReferenceTarget): ItemId {
  const path = toIriPath(raw);
  const id = parseItemId(
    identifier,
    path.startsWith(`${collectionPath}/`) ? path.slice(collectionPath.length + 1) : raw,
  );
  if (id === undefined)
    throw invalidParameter(variable, `expected an IRI of "${collectionPath}" or an id, "${raw}" given.`);
  return id;
}

/** Which value a leaf's equality filter takes: numbers, booleans, dates, references (IRI or id), or text. */
export function toLeafValue(
  variable: string,
  raw: string,
  resolved: ResolvedPath,
  referenceOf: (resource: string) => ReferenceTarget,
): unknown {
  const { leaf } = resolved;
  if (leaf.kind === 'toOne') return toReference(variable, raw, referenceOf(leaf.target));
  // An identifier (`id`, or a to-many relation such as `tags`) takes the item's IRI or its id.
  if (leaf === ID_FIELD) return toReference(variable, raw, referenceOf(resolved.owner));
  switch (leaf.type) {
    case 'integer':
      return toNumber(variable, raw, true);
    case 'float':
      return toNumber(variable, raw, false);
    case 'boolean':
      return toBoolean(variable, raw);
    case 'date':
    case 'datetime':
      return toDateValue(variable, raw, leaf);
    default:
      return raw;
  }
}

export const isInteger = (leaf: Leaf): boolean => leaf.kind === 'scalar' && leaf.type === 'integer';
export const isNumeric = (leaf: Leaf): boolean =>
  leaf.kind === 'scalar' && (leaf.type === 'integer' || leaf.type === 'float');
export const isTemporal = (leaf: Leaf): boolean =>
  leaf.kind === 'scalar' && (leaf.type === 'date' || leaf.type === 'datetime');
export const isText = (leaf: Leaf): boolean =>
  leaf.kind === 'scalar' && (leaf.type === 'string' || leaf.type === 'text');

/** The JSON Schema type of one filter value: the field's input type (the same mapping as request bodies). */
export function toValueSchema(leaf: Leaf): { type: 'string' | 'integer' | 'number' | 'boolean'; format?: string } {
  const { type, format } = buildFieldInputSchema(leaf) as { type?: unknown; format?: string };
  const single = (Array.isArray(type) ? type[0] : type) as 'string' | 'integer' | 'number' | 'boolean' | undefined;
  return format === undefined ? { type: single ?? 'string' } : { type: single ?? 'string', format };
}
