/**
 * Item ids, by the resource's identifier type: parsed from a URI segment, read back from a column, and made for a new
 * item when the framework makes them (UUID version 7).
 */
import { randomFillSync } from 'node:crypto';
import type { IdentifierMetadata, ItemId } from './types.js';

/** The identifier of every resource that declares no `id`, and of shapes. */
export const INTEGER_IDENTIFIER: IdentifierMetadata = Object.freeze({
  name: 'id',
  column: 'id',
  type: 'integer',
  generatedBy: 'database',
});

/** The largest id a (32-bit) integer column holds; anything above cannot exist. */
export const MAX_ID = 2_147_483_647;

const INTEGER_ID = /^[1-9][0-9]{0,9}$/;
/** Any RFC 9562 UUID (any version and variant), hyphenated; upper case is accepted and made canonical. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** An id from a URI variable, an IRI segment or a query value: one the resource can hold, or undefined. */
export function parseItemId(identifier: IdentifierMetadata, raw: string): ItemId | undefined {
  if (identifier.type === 'uuid') return UUID.test(raw) ? raw.toLowerCase() : undefined;
  if (!INTEGER_ID.test(raw)) return undefined;
  const id = Number(raw);
  return id <= MAX_ID ? id : undefined;
}

/** An id as a column returns it (PostgreSQL's `int8` and drivers' strings made numbers; UUIDs as lower-case text). */
export const readItemId = (identifier: IdentifierMetadata, value: unknown): ItemId =>
  identifier.type === 'uuid' ? String(value).toLowerCase() : Number(value);

let lastMillis = 0;
let sequence = 0;

/**
 * A UUID version 7 (RFC 9562): 48 bits of Unix milliseconds, then a 12-bit counter that keeps ids made in the same
 * millisecond in order (method 1 of section 6.2), then 62 random bits. Ids made by one process sort in creation order,
 * so the default order by id is the order of creation, and new rows land at the end of the primary key's index.
 */
export function generateUuidV7(now = Date.now()): string {
  const bytes = randomFillSync(new Uint8Array(16));
  if (now > lastMillis) {
    lastMillis = now;
    sequence = bytes[6]! & 0x03; // a small random start leaves room for 1,000+ ids in one millisecond
  } else if (++sequence > 0xfff) {
    lastMillis += 1; // the counter ran out: borrow the next millisecond, as section 6.2 allows
    sequence = 0;
  }
  const millis = lastMillis;
  bytes[0] = Math.floor(millis / 2 ** 40) & 0xff;
  bytes[1] = Math.floor(millis / 2 ** 32) & 0xff;
  bytes[2] = (millis >>> 24) & 0xff;
  bytes[3] = (millis >>> 16) & 0xff;
  bytes[4] = (millis >>> 8) & 0xff;
  bytes[5] = millis & 0xff;
  bytes[6] = 0x70 | (sequence >>> 8);
  bytes[7] = sequence & 0xff;
  bytes[8] = 0x80 | (bytes[8]! & 0x3f);
  const hex = Buffer.from(bytes).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The id the framework gives a new item before inserting it, or undefined when the database makes it. */
export const makeItemId = (identifier: IdentifierMetadata): string | undefined =>
  identifier.generatedBy === 'framework' ? generateUuidV7() : undefined;
