/**
 * Relay cursor windows (GraphQL's `first`, `last`, `before`, `after`) → an offset and a limit. Cursors are the base64
 * of the zero-based offset, as API Platform writes them (`"MA=="` is the first item). The pipeline's parameters stage
 * reads a collection query's window (so an anonymous caller of a protected query gets its 401 before any argument is
 * looked at); a to-many relation's connection reads its window over the ids in hand.
 */
import { ApiError } from '../errors.js';

/** The paging arguments of a Relay connection, as the client gave them. */
export interface CursorWindow {
  readonly first?: number | null;
  readonly last?: number | null;
  readonly before?: string | null;
  readonly after?: string | null;
}

export const encodeCursor = (offset: number): string => Buffer.from(String(offset)).toString('base64');

export function decodeCursor(cursor: string): number {
  const offset = cursor === '' ? Number.NaN : Number(Buffer.from(cursor, 'base64').toString('utf8'));
  // A safe integer only: an offset of 1e20 would reach the SQL and fail there.
  if (!Number.isSafeInteger(offset) || offset < 0)
    throw new ApiError(
      'INVALID_PARAMETER',
      `Cursor "${cursor.length > 100 ? `${cursor.slice(0, 100)}…` : cursor}" is invalid.`,
    );
  return offset;
}

/** Whether the window counts from the end (`last` without `before`): its total must be known first. */
export const countsFromEnd = (window: CursorWindow): boolean =>
  window.last != null && window.first == null && window.before == null;

/**
 * The offset and limit of a window over `total` items (null: unknown, only needed when it counts from the end).
 * `fallback` is the page size when neither `first` nor `last` is given, `maximum` the largest one served.
 */
export function computeSpan(
  window: CursorWindow,
  fallback: number,
  maximum: number,
  total: number | null,
): { offset: number; limit: number } {
  for (const name of ['first', 'last'] as const) {
    const size = window[name];
    if (size != null && size < 0)
      throw new ApiError('INVALID_PARAMETER', `Limit should not be less than 0 (argument "${name}").`);
  }
  const clamp = (n: number) => Math.min(n, maximum);
  if (window.last != null && window.first == null) {
    const end = window.before != null ? decodeCursor(window.before) : (total ?? 0);
    const limit = clamp(window.last);
    return { offset: Math.max(0, end - limit), limit: Math.min(limit, end) };
  }
  const offset = window.after != null ? decodeCursor(window.after) + 1 : 0;
  let limit = clamp(window.first ?? fallback);
  if (window.before != null) limit = Math.min(limit, Math.max(0, decodeCursor(window.before) - offset));
  return { offset, limit };
}
