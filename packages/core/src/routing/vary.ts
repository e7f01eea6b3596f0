/**
 * `Vary` built up by several hands: CORS (`Origin`), the respond stage (`Accept, Authorization` and the declared
 * names), the API scope (`Accept` on every response). Each adds its names to what is there, never replaces it: a cache
 * that lost a name would answer one variant for another (another origin's `Access-Control-Allow-Origin`).
 */
import { BoundedMemo } from '../bounded-memo.js';

/**
 * `vary` with the names of `added` it lacks, after its own (names compared without letter case); `vary` itself when
 * it lacks none or is `*`, which covers every name.
 */
export function mergeVary(vary: string | undefined, added: string): string {
  if (vary === undefined || vary.trim() === '') return added;
  // Run on every response, up to three times, over a handful of values (the operations' and CORS's, never a
  // client's): each merge is made once.
  const key = `${vary}\n${added}`;
  return merges.get(key) ?? merges.keep(key, mergeNames(vary, added));
}

const merges = new BoundedMemo<string, string>(256);

function mergeNames(vary: string, added: string): string {
  const names = vary.split(',').map((name) => name.trim());
  const known = new Set(names.map((name) => name.toLowerCase()));
  if (known.has('*')) return vary;
  let merged = vary;
  for (const name of added.split(',')) {
    const trimmed = name.trim();
    const lower = trimmed.toLowerCase();
    if (trimmed === '' || known.has(lower)) continue;
    known.add(lower);
    merged = `${merged}, ${trimmed}`;
  }
  return merged;
}
