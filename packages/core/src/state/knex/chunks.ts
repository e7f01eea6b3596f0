/** Keeps bound parameters per statement well below SQLite's limit when a list of ids is long. */
const CHUNK = 500;

/** `values` in parts of at most 500, for `where … in (…)` lists. */
export function listChunks<T>(values: readonly T[]): T[][] {
  const result: T[][] = [];
  for (let start = 0; start < values.length; start += CHUNK) result.push(values.slice(start, start + CHUNK));
  return result;
}
