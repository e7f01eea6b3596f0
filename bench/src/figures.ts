/** Small helpers for the figures of the report: a median, a quantile, a number printed or a dash. */

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/** The `p`-quantile of values sorted in ascending order (nearest rank); NaN when there are none. */
export function quantile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))] as number;
}

/** A number with `digits` decimals, or `—` when it is not one (no measurement). */
export const fixed = (value: number, digits: number) => (Number.isFinite(value) ? value.toFixed(digits) : '—');
