/**
 * The Mercure part of the report (issue 38): the delay from a write's response to its event at W5-mercure's
 * subscribers, whether every subscriber received every sampled write, and the RSS that 1,000 idle subscribers add; as
 * tables, and as rows of the targets table. Its req/s target (≥ 0.8 × W5 on the same server) is a ratio like the
 * others, rendered by `report.ts`.
 */
import { fixed, median } from './figures.js';
import type { DelayFigures } from './mercure-delay.js';
import type { IdleSubscribersRss } from './mercure-idle.js';

interface Measured {
  readonly round: number;
  readonly workload: string;
  readonly target: string;
  readonly mercure?: DelayFigures;
}

/** The target of the delay, in milliseconds: its 95th percentile under this. */
const DELAY_P95_MS = 50;
/** What 1,000 idle subscribers may add to the app's RSS, in MiB. */
const IDLE_SUBSCRIBERS_MIB = 60;

interface Delays {
  readonly workload: string;
  readonly target: string;
  /** Each round's figures, in round order. */
  readonly rounds: DelayFigures[];
}

/** The measurements with Mercure figures, by workload and target. */
function byTarget(measurements: readonly Measured[]): Delays[] {
  const found = new Map<string, Delays>();
  for (const m of [...measurements].sort((a, b) => a.round - b.round)) {
    if (!m.mercure) continue;
    const key = `${m.workload} ${m.target}`;
    const delays = found.get(key) ?? { workload: m.workload, target: m.target, rounds: [] };
    delays.rounds.push(m.mercure);
    found.set(key, delays);
  }
  return [...found.values()];
}

/** The tables: the delays of each target, each round; the idle subscribers' RSS of each server. */
export function mercureTables(measurements: readonly Measured[], idle: readonly IdleSubscribersRss[]): string[] {
  const lines: string[] = [];
  const targets = byTarget(measurements);
  if (targets.length > 0) {
    lines.push(
      '',
      "| Mercure: a write's response to its event | target | round | subscribers | sampled writes | events received / expected | dropped | delay p50 ms | p95 ms | max ms | bench CPU |",
      '|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|',
    );
    for (const { workload, target, rounds } of targets) {
      rounds.forEach((f, i) => {
        lines.push(
          `| ${workload} | ${target} | ${i + 1} | ${f.subscribers} | ${f.samples}${f.failedSamples > 0 ? ` (${f.failedSamples} failed)` : ''} | ${f.received} / ${f.expected} | ${f.dropped} | ${fixed(f.p50Ms, 1)} | ${fixed(f.p95Ms, 1)} | ${fixed(f.maxMs, 1)} | ${fixed(f.benchCores, 2)} |`,
        );
      });
    }
    lines.push(
      '',
      "Sampled writes: POSTs of the bench's own beside wrk's, one every 25 ms, each with a marker in its title; the delay runs from the",
      "arrival of a sampled write's response to the arrival of its event at each subscriber, both in the bench's process (below zero: the",
      'event came first, as the update is published beside the response). `bench CPU`: the cores the bench process (the subscribers',
      'reading, the sampled writes) used meanwhile, beside the server and wrk.',
    );
  }
  if (idle.length > 0) {
    lines.push(
      '',
      '| idle Mercure subscribers | subscribers | RSS before | RSS with them | added | opened in |',
      '|---|--:|--:|--:|--:|--:|',
    );
    for (const s of idle)
      lines.push(
        `| ${s.server} | ${s.subscribers} | ${fixed(s.beforeMiB, 1)} MiB | ${fixed(s.withMiB, 1)} MiB | ${fixed(s.withMiB - s.beforeMiB, 1)} MiB | ${fixed(s.connectMs, 0)} ms |`,
      );
  }
  return lines;
}

/** The rows of the targets table (`| target | measured | rounds; … | met or missed |`). */
export function mercureTargetRows(measurements: readonly Measured[], idle: readonly IdleSubscribersRss[]): string[] {
  const rows: string[] = [];
  const shipped = (target: string) => (target === 'bookshop' ? '' : `, as shipped (${target})`);
  for (const { workload, target, rounds } of byTarget(measurements)) {
    // Like the ratios: the median of the rounds' figures, each round's given beside it.
    const p95 = median(rounds.map((f) => f.p95Ms));
    if (Number.isFinite(p95))
      rows.push(
        `| ${workload}: p95 of the delay from a write's response to its event < ${DELAY_P95_MS} ms${shipped(target)} | ${fixed(p95, 1)} ms | ${rounds.map((f) => fixed(f.p95Ms, 1)).join(', ')} (p50 ${fixed(median(rounds.map((f) => f.p50Ms)), 1)}, max ${fixed(Math.max(...rounds.map((f) => f.maxMs)), 1)}) | ${p95 < DELAY_P95_MS ? 'met' : `missed (${fixed(p95 - DELAY_P95_MS, 1)} ms over)`} |`,
      );
    const expected = rounds.reduce((sum, f) => sum + f.expected, 0);
    const received = rounds.reduce((sum, f) => sum + f.received, 0);
    const dropped = rounds.reduce((sum, f) => sum + f.dropped, 0);
    rows.push(
      `| ${workload}: every subscriber receives every sampled write${shipped(target)} | ${received} / ${expected} | ${rounds.map((f) => `${f.received}/${f.expected}`).join(', ')}; ${dropped} dropped | ${expected > 0 && received === expected ? 'met' : `missed (${expected - received} missing)`} |`,
    );
  }
  for (const s of idle) {
    const added = s.withMiB - s.beforeMiB;
    rows.push(
      `| ${s.subscribers.toLocaleString('en')} idle Mercure subscribers add ≤ ${IDLE_SUBSCRIBERS_MIB} MiB of RSS${shipped(s.server)} | ${fixed(added, 1)} MiB | ${fixed(s.beforeMiB, 1)} → ${fixed(s.withMiB, 1)} MiB | ${added <= IDLE_SUBSCRIBERS_MIB ? 'met' : `missed (${fixed(added - IDLE_SUBSCRIBERS_MIB, 1)} MiB over)`} |`,
    );
  }
  return rows;
}
