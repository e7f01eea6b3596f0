/**
 * File sizes as Symfony's File constraint reads and prints them: `maxSize` as bytes or with a suffix (`k`, `M`: powers
 * of 1000; `Ki`, `Mi`: powers of 1024), and the sizes of its message in the unit that shows the difference
 * (`The file is too large (2.5 MB). Allowed maximum size is 2 MB.`).
 */

/** A `maxSize`: bytes, and whether it was written in binary units (then the message prints KiB and MiB). */
export interface FileSizeLimit {
  readonly bytes: number;
  readonly binary: boolean;
}

const FACTORS: Readonly<Record<string, number>> = { '': 1, k: 1000, K: 1000, M: 1000 ** 2, Ki: 1024, Mi: 1024 ** 2 };

/** Reads a `maxSize`; undefined for anything else (refused when the metadata is built). */
export function parseFileSize(maxSize: number | string): FileSizeLimit | undefined {
  if (typeof maxSize === 'number' && Number.isInteger(maxSize) && maxSize >= 0)
    return { bytes: maxSize, binary: false };
  const match = typeof maxSize === 'string' ? /^(\d+)(k|K|M|Ki|Mi)?$/.exec(maxSize) : null;
  if (!match) return undefined;
  const unit = match[2] ?? '';
  return { bytes: Number(match[1]) * FACTORS[unit]!, binary: unit.startsWith('Ki') || unit.startsWith('Mi') };
}

const SUFFIXES: Readonly<Record<number, string>> = {
  1: 'bytes',
  1000: 'kB',
  1000000: 'MB',
  1024: 'KiB',
  1048576: 'MiB',
};

/** Whether a number printed as PHP prints it has more than `places` decimals. */
const moreDecimalsThan = (text: string, places: number): boolean => (text.split('.')[1]?.length ?? 0) > places;
const round2 = (value: number): string => String(Math.round(value * 100) / 100);

/**
 * The size and the limit in one unit, as Symfony's `factorizeSizes`: the largest unit (MB, or MiB) in which the limit
 * has at most two decimals, then smaller ones while the two would print the same.
 */
export function factorizeSizes(size: number, limit: FileSizeLimit): { size: string; limit: string; suffix: string } {
  let coef = limit.binary ? 1024 ** 2 : 1000 ** 2;
  const factor = limit.binary ? 1024 : 1000;
  let limitText = String(limit.bytes / coef);
  while (moreDecimalsThan(limitText, 2) && coef > 1) {
    coef /= factor;
    limitText = String(limit.bytes / coef);
  }
  let sizeText = round2(size / coef);
  while (sizeText === limitText && coef > 1) {
    coef /= factor;
    limitText = String(limit.bytes / coef);
    sizeText = round2(size / coef);
  }
  return { size: sizeText, limit: limitText, suffix: SUFFIXES[coef] ?? 'bytes' };
}
