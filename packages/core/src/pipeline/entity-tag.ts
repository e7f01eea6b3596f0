/**
 * Entity tags (RFC 9110 §8.8.3, §13.1): the strong `ETag` of a representation, hashed from the exact bytes sent, and
 * the `If-Match` / `If-None-Match` tests. Pure functions, shared by the routes (ETag, 304) and the preconditions stage
 * (412), so they live in pipeline/, which routing/ reads. `fresh` (jshttp) covers only If-None-Match on GET, and no
 * library covers If-Match, so both live here.
 */
import * as crypto from 'node:crypto';

// `crypto.hash` (Node 20.12+) hashes in one call, without a Hash object: faster on a page's bytes
// (docs/performance.md).
const sha1 =
  typeof crypto.hash === 'function'
    ? (body: string): string => crypto.hash('sha1', body, 'base64url')
    : (body: string): string => crypto.createHash('sha1').update(body).digest('base64url');

/** The strong ETag of a serialized body: `"<sha1 in base64url>"`. Different bytes, different tag. */
export function computeEntityTag(body: string): string {
  return `"${sha1(body)}"`;
}

/** One entity tag of a precondition header: its opaque part (with quotes) and whether it is weak (`W/`). */
interface ListedTag {
  readonly opaque: string;
  readonly weak: boolean;
}

/** `*`, or the tags listed (malformed members are skipped: they can never match). */
export type ParsedTags = '*' | readonly ListedTag[];

const TAG = /(W\/)?("[\x21\x23-\x7e\x80-\xff]*")/g;

/** Parses an `If-Match` / `If-None-Match` value: `*`, or `"a", W/"b"`. */
export function parseEntityTags(header: string): ParsedTags {
  if (header.trim() === '*') return '*';
  return [...header.matchAll(TAG)].map((m) => ({ opaque: m[2]!, weak: m[1] !== undefined }));
}

const opaqueOf = (etag: string): string => (etag.startsWith('W/') ? etag.slice(2) : etag);

/**
 * `If-Match`: true when the header is `*` (the item exists: the caller checked it) or lists a tag strongly equal to one
 * of `current` (a weak tag never matches, RFC 9110 §13.1.1).
 */
export function ifMatchHolds(header: string, current: readonly string[]): boolean {
  const tags = parseEntityTags(header);
  if (tags === '*') return true;
  return tags.some((tag) => !tag.weak && current.includes(tag.opaque));
}

/**
 * Whether `If-None-Match` finds a match (weak comparison, RFC 9110 §13.1.2): `*`, or a listed tag whose opaque part
 * equals one of `current`. A match means 304 on GET and HEAD, 412 on the other methods.
 */
export function ifNoneMatchMatches(header: string, current: readonly string[]): boolean {
  const tags = parseEntityTags(header);
  if (tags === '*') return true;
  const opaques = current.map(opaqueOf);
  return tags.some((tag) => opaques.includes(tag.opaque));
}
