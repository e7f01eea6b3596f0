/**
 * "Did you mean" for boot-time messages: the closest known name to a mistyped one, when it is close enough to be a
 * likely typo (Levenshtein distance, case-insensitive).
 */

function distance(a: string, b: string): number {
  const previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = previous[0]!;
    previous[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = previous[j]!;
      previous[j] = Math.min(above + 1, previous[j - 1]! + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return previous[b.length]!;
}

/** The closest candidate, or undefined when none is within a typo's reach. */
export function findClosest(name: string, candidates: Iterable<string>): string | undefined {
  const wanted = name.toLowerCase();
  let best: string | undefined;
  let bestDistance = Math.max(2, Math.floor(name.length / 3)) + 1;
  for (const candidate of candidates) {
    const known = candidate.toLowerCase();
    // A typo in the first part of a long name (`paginationItemz` for `paginationItemsPerPage`) counts as close too.
    const d = Math.min(
      distance(wanted, known),
      known.length > wanted.length + 2 ? distance(wanted, known.slice(0, wanted.length)) + 1 : Infinity,
    );
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best;
}

/** ` Did you mean "x"?` or an empty string, to append to a message. */
export function formatDidYouMean(name: string, candidates: Iterable<string>): string {
  const suggestion = findClosest(name, candidates);
  return suggestion === undefined ? '' : ` Did you mean "${suggestion}"?`;
}
