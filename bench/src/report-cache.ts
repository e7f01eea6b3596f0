/**
 * The in-process HTTP cache's part of the report (issue 39): for each cached read workload (W1-cached, W3-cached) and
 * each cached target, what wrk counted of each response's `X-Cache` over the measured seconds of each round (HIT,
 * MISS, none: absent or another value), and the hit ratio. Its req/s targets (≥ 0.8 × the floor, ≥ 0.9 × W5 without
 * the cache) are ratios like the others, rendered by `report.ts`.
 */
import { fixed, median } from './figures.js';
import type { HeaderCounts } from './wrk.js';

interface Measured {
  readonly round: number;
  readonly workload: string;
  readonly target: string;
  readonly headerCounts?: HeaderCounts;
}

const ratioOf = (c: HeaderCounts) => {
  const all = c.hit + c.miss + c.none;
  return all > 0 ? c.hit / all : Number.NaN;
};

/** The table of X-Cache counts, one row per cached target and round, then the median hit ratio over the rounds. */
export function cacheTables(measurements: readonly Measured[], cacheTargets: ReadonlySet<string>): string[] {
  const rows = [...measurements]
    .filter((m) => m.headerCounts && cacheTargets.has(m.target))
    .sort((a, b) => a.workload.localeCompare(b.workload) || a.target.localeCompare(b.target) || a.round - b.round);
  if (rows.length === 0) return [];
  const lines = [
    '',
    '| in-process HTTP cache: `X-Cache` of the measured responses | target | round | HIT | MISS | none | hit ratio |',
    '|---|---|--:|--:|--:|--:|--:|',
  ];
  for (const m of rows) {
    const c = m.headerCounts as HeaderCounts;
    lines.push(
      `| ${m.workload} | ${m.target} | ${m.round} | ${c.hit} | ${c.miss} | ${c.none} | ${fixed(100 * ratioOf(c), 1)} % |`,
    );
  }
  const keys = [...new Set(rows.map((m) => `${m.workload}\u0000${m.target}`))];
  lines.push(
    '',
    `Hit ratio, median over the rounds: ${keys
      .map((key) => {
        const [workload, target] = key.split('\u0000') as [string, string];
        const ratios = rows
          .filter((m) => m.workload === workload && m.target === target)
          .map((m) => ratioOf(m.headerCounts as HeaderCounts));
        return `${workload} ${target} ${fixed(100 * median(ratios), 1)} %`;
      })
      .join('; ')}.`,
    'Counted by wrk (its Lua `response()`, on every target of the workload, the floor too, so wrk does the same work',
    'for each) over the measured seconds only. The warm-up before each measurement and the earlier rounds fill the',
    "cache with the same URLs (W3's rotation starts over at each wrk run), so a later round finds more of them; writes",
    '(W5-cached) are never cached and purge the pages they change.',
  );
  return lines;
}
