/** "Did you mean" for mistyped command, option and resource names: the closest known name within a typo's reach. */
import { distance } from 'fastest-levenshtein';

/** ` Did you mean "x"?` or an empty string, to append to a message; `show` formats the suggestion (`--out`). */
export function didYouMean(
  name: string,
  candidates: Iterable<string>,
  show: (candidate: string) => string = (c) => c,
): string {
  const wanted = name.toLowerCase();
  let best: string | undefined;
  let bestDistance = Math.max(2, Math.floor(name.length / 3)) + 1;
  for (const candidate of candidates) {
    const d = distance(wanted, candidate.toLowerCase());
    if (d < bestDistance) [best, bestDistance] = [candidate, d];
  }
  return best === undefined ? '' : ` Did you mean "${show(best)}"?`;
}
