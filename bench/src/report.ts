/**
 * The bench's report, in Markdown: one row per workload and target with medians over the rounds, and ratios taken
 * round by round against the reference measured in the same round (the median of those per-round ratios, not the ratio
 * of the medians); then start-up and memory, SQL statements per request, the request log of the app as shipped, and
 * the targets of issue 9 (point 2), met or missed, for today's build (`bookshop`) and for the app as shipped
 * (`bookshop-shipped`, issue 35); with W5-mercure, the Mercure figures and targets of issue 38 (`report-mercure.ts`);
 * with the cached workloads, the hit ratios (`report-cache.ts`) and the targets of issue 39.
 */
import { fixed, median } from './figures.js';
import type { DelayFigures } from './mercure-delay.js';
import type { IdleSubscribersRss } from './mercure-idle.js';
import { cacheTables } from './report-cache.js';
import { mercureTables, mercureTargetRows } from './report-mercure.js';
import { CACHE_TARGETS, referenceOf, SHIPPED_TARGETS, type TargetName } from './workloads.js';
import type { WrkResult } from './wrk.js';

export interface Measurement extends WrkResult {
  readonly round: number;
  readonly workload: string;
  readonly target: TargetName;
  /** The server's CPU time (user and system, all its threads) per completed request, in microseconds. */
  readonly cpuUsPerRequest: number;
  /** The app as shipped: lines and bytes its log grew by during the measurement, per completed request. */
  readonly logLinesPerRequest?: number;
  readonly logBytesPerRequest?: number;
  /** W5-mercure: the delays of the sampled writes' events at the subscribers, and how many arrived. */
  readonly mercure?: DelayFigures;
}

export interface Report {
  readonly date: string;
  readonly books: number;
  readonly authors: number;
  readonly cpus: number;
  readonly cpuModel: string;
  readonly node: string;
  readonly wrk: string;
  readonly seconds: number;
  readonly warmup: number;
  readonly rounds: number;
  readonly workloads: readonly {
    id: string;
    title: string;
    targets: readonly TargetName[];
    reference: { workload: string; target: TargetName };
    /** Each target against `reference.workload` on the same target (W5-mercure against W5). */
    referenceOnSameTarget?: boolean;
    /** Each target against `reference.workload` on the target named here (W5-cached against W5 without the cache). */
    referenceTargets?: Partial<Record<TargetName, TargetName>>;
  }[];
  readonly measurements: readonly Measurement[];
  readonly bodyBytes: Record<string, number>;
  readonly servers: readonly { name: string; startupMs: number; idleRssMiB: number; peakRssMiB: number }[];
  readonly statements: readonly { label: string; request: string; statements: number; sql?: readonly string[] }[];
  /** The settings the app as shipped ran with, besides its defaults (the database and the JWT secret left out). */
  readonly shippedSettings?: Record<string, string>;
  /** The RSS of the app's servers with 1,000 idle Mercure subscribers (when W5-mercure runs). */
  readonly idleSubscribers?: readonly IdleSubscribersRss[];
}

const rpsOf = (m: Measurement) => m.requestsPerSecond;

/** Median figures of one workload on one target, and their ratios to the reference (per round, then the median). */
export function summarize(
  report: Report,
  workload: string,
  target: TargetName,
  reference: { workload: string; target: TargetName },
) {
  const own = report.measurements.filter((m) => m.workload === workload && m.target === target);
  const roundRatios = (pick: (m: Measurement) => number) =>
    own.flatMap((m) => {
      const ref = report.measurements.find(
        (r) => r.round === m.round && r.workload === reference.workload && r.target === reference.target,
      );
      return ref && ref.requests > 0 && pick(ref) > 0 && (m.requests > 0 || pick === rpsOf)
        ? [pick(m) / pick(ref)]
        : [];
    });
  const ratios = (pick: (m: Measurement) => number) => median(roundRatios(pick));
  const refRps = median(
    report.measurements.filter((r) => r.workload === reference.workload && r.target === reference.target).map(rpsOf),
  );
  const logged = own.filter((m) => m.logLinesPerRequest !== undefined && m.requests > 0);
  return {
    rps: median(own.map((m) => m.requestsPerSecond)),
    // A measurement in which no request completed has no latency (wrk reports 0).
    p50: median(own.filter((m) => m.requests > 0).map((m) => m.p50Ms)),
    p99: median(own.filter((m) => m.requests > 0).map((m) => m.p99Ms)),
    cpu: median(own.filter((m) => m.requests > 0).map((m) => m.cpuUsPerRequest)),
    errors: own.reduce((sum, m) => sum + m.errors, 0),
    requests: own.reduce((sum, m) => sum + m.requests, 0),
    /** The median of the per-round ratios of req/s: the figure the targets are judged on. */
    rpsRatio: ratios(rpsOf),
    /** Each round's ratio of req/s, in round order. */
    rpsRoundRatios: roundRatios(rpsOf),
    /** The ratio of the medians (median req/s over median req/s of the reference), for comparison. */
    rpsRatioOfMedians: refRps > 0 ? median(own.map(rpsOf)) / refRps : Number.NaN,
    logLines: median(logged.map((m) => m.logLinesPerRequest as number)),
    logBytes: median(logged.map((m) => m.logBytesPerRequest as number)),
    p50Ratio: ratios((m) => m.p50Ms),
    p99Ratio: ratios((m) => m.p99Ms),
    cpuRatio: ratios((m) => m.cpuUsPerRequest),
  };
}

export function renderReport(report: Report): string {
  const lines: string[] = [];
  lines.push(
    `Run of ${report.date.slice(0, 10)} (${report.date.slice(11, 16)} UTC): ${report.authors.toLocaleString('en')} authors, ${report.books.toLocaleString('en')} books; ` +
      `${report.cpus} CPUs (${report.cpuModel.trim()}), Node ${report.node}, ${report.wrk}, ${report.seconds} s per measurement after ${report.warmup} s of warm-up, ` +
      `${report.rounds} rounds in alternating order; medians over the rounds; each ratio is the median of the per-round ratios (target ÷ reference of the same round).`,
    '',
    '| workload | target | req/s | × ref | p50 ms | × ref | p99 ms | × ref | CPU µs/req | × ref | errors | requests | body bytes |',
    '|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|',
  );
  for (const workload of report.workloads) {
    for (const target of workload.targets) {
      const reference = referenceOf(workload, target);
      const s = summarize(report, workload.id, target, reference);
      const isRef = reference.workload === workload.id && reference.target === target;
      const ratio = (value: number) => (isRef ? '1' : fixed(value, 2));
      lines.push(
        `| ${workload.id} | ${target}${isRef ? ' (ref)' : ''} | ${fixed(s.rps, 0)} | ${ratio(s.rpsRatio)} | ${fixed(s.p50, 2)} | ${ratio(s.p50Ratio)} | ${fixed(s.p99, 2)} | ${ratio(s.p99Ratio)} | ${fixed(s.cpu, 0)} | ${ratio(s.cpuRatio)} | ${s.errors} | ${s.requests} | ${report.bodyBytes[`${workload.id} ${target}`] ?? '—'} |`,
      );
    }
  }
  lines.push(
    '',
    "The reference (`ref`) of each workload is the baseline; W5 takes the baseline with WAL, W6 the baseline's W4, W5-mercure W5 on the",
    'same server measured right before or after it (W5-paired), W1-cached and W3-cached the floor, W5-cached W5 on the same server kind without the cache. `requests`: completed in the measured seconds of all rounds (a figure made of few requests is a rough one). `CPU µs/req`:',
    "the server process's CPU time (user and system, all its threads) during the measurement, per completed request; PostgreSQL's own",
    'processes are not counted.',
    '`bookshop` is the example app as `buildBookshop` builds it (no request log, no rate limit); `bookshop-shipped` is the app as `pnpm start`',
    'runs it (`dist/main.js` with its default settings: request log at `info`, rate limits on with a ceiling wrk cannot reach; see `shippedEnv`).',
  );
  if (report.shippedSettings)
    lines.push(
      `The app as shipped ran with ${Object.entries(report.shippedSettings)
        .map(([k, v]) => `\`${k}=${v}\``)
        .join(', ')} (and its database and JWT secret); every other setting at its default.`,
    );
  lines.push('');
  for (const workload of report.workloads) lines.push(`- **${workload.id}**: ${workload.title}`);

  const shippedRows = report.workloads.flatMap((w) =>
    w.targets.filter((t) => SHIPPED_TARGETS.has(t)).map((t) => ({ workload: w, target: t })),
  );
  if (shippedRows.length > 0) {
    lines.push(
      '',
      '| request log of the app as shipped | target | lines per request | bytes per request |',
      '|---|---|--:|--:|',
    );
    for (const { workload, target } of shippedRows) {
      const s = summarize(report, workload.id, target, workload.reference);
      lines.push(`| ${workload.id} | ${target} | ${fixed(s.logLines, 2)} | ${fixed(s.logBytes, 0)} |`);
    }
  }

  lines.push('', '| server | start-up (spawn to first 200) | idle RSS | peak RSS under load |', '|---|--:|--:|--:|');
  for (const server of report.servers) {
    lines.push(
      `| ${server.name} | ${fixed(server.startupMs, 0)} ms | ${fixed(server.idleRssMiB, 1)} MiB | ${fixed(server.peakRssMiB, 1)} MiB |`,
    );
  }

  lines.push(...mercureTables(report.measurements, report.idleSubscribers ?? []));
  lines.push(...cacheTables(report.measurements, new Set(CACHE_TARGETS.keys())));

  lines.push('', '| SQL statements per request (the example app) | request | statements |', '|---|---|--:|');
  for (const s of report.statements) lines.push(`| ${s.label} | \`${s.request}\` | ${s.statements} |`);

  lines.push(
    '',
    "Targets of req/s are judged on the median of the per-round ratios; the next column gives each round's ratio, then the ratio of the medians",
    "(median req/s ÷ the reference's median req/s), for comparison. The rows of `bookshop-shipped` hold the app as `pnpm start` runs it to the",
    'same targets.',
    '',
    '| issue 9 target | measured | rounds; ratio of medians | |',
    '|---|--:|---|---|',
  );
  const target = (label: string, value: number, goal: number, higherIsBetter: boolean, unit = '', detail = '') => {
    if (!Number.isFinite(value)) return;
    const met = higherIsBetter ? value >= goal : value <= goal;
    const by = higherIsBetter
      ? `${fixed((100 * value) / goal, 0)} % of the goal`
      : `${fixed(value - goal, unit ? 0 : 2)}${unit} over`;
    lines.push(`| ${label} | ${fixed(value, unit ? 0 : 2)}${unit} | ${detail} | ${met ? 'met' : `missed (${by})`} |`);
  };
  const ratioTarget = (
    label: string,
    w: string,
    t: TargetName,
    ref: { workload: string; target: TargetName },
    goal: number,
  ) => {
    if (
      !report.workloads.some((x) => x.id === w && x.targets.includes(t)) ||
      !report.workloads.some((x) => x.id === ref.workload)
    )
      return;
    const s = summarize(report, w, t, ref);
    const detail = `${s.rpsRoundRatios.map((r) => fixed(r, 2)).join(', ')}; ${fixed(s.rpsRatioOfMedians, 2)}`;
    target(SHIPPED_TARGETS.has(t) ? `${label}, as shipped (${t})` : label, s.rpsRatio, goal, true, '', detail);
  };
  // Each target of today's build, then the same for the app as shipped where it serves the workload.
  const both = (label: string, w: string, ref: { workload: string; target: TargetName }, goal: number) => {
    ratioTarget(label, w, 'bookshop', ref, goal);
    ratioTarget(label, w, 'bookshop-shipped', ref, goal);
  };
  both('W1 ≥ 1.5 × baseline', 'W1', { workload: 'W1', target: 'baseline' }, 1.5);
  both('W2 ≥ 1.0 × baseline', 'W2', { workload: 'W2', target: 'baseline' }, 1.0);
  ratioTarget(
    'W2 with a trigram index ≥ 5 × baseline',
    'W2-index',
    'bookshop-trigram',
    { workload: 'W2', target: 'baseline' },
    5,
  );
  both('W3 ≥ 2.0 × baseline', 'W3', { workload: 'W3', target: 'baseline' }, 2.0);
  ratioTarget('W4 ≥ 1.3 × baseline', 'W4', 'bookshop-embed', { workload: 'W4', target: 'baseline' }, 1.3);
  both('W5 ≥ 1.0 × baseline with WAL', 'W5', { workload: 'W5', target: 'baseline-wal' }, 1.0);
  ratioTarget(
    'W5 with an afterCommit hook that does nothing ≥ 0.95 × without (issue 33)',
    'W5-hook',
    'bookshop-hook',
    { workload: 'W5-hook', target: 'bookshop-nohook' },
    0.95,
  );
  ratioTarget(
    "W5 with an afterWrite hook that does nothing (in the write's transaction) ≥ 0.95 × without (issue 33)",
    'W5-hook',
    'bookshop-hook-tx',
    { workload: 'W5-hook', target: 'bookshop-nohook' },
    0.95,
  );
  // Issue 38: each server with 100 subscribers on its hub against itself without them, measured right before or after.
  for (const t of ['bookshop', 'bookshop-shipped'] as const)
    ratioTarget(
      'W5 with 100 Mercure subscribers ≥ 0.8 × W5 on the same server (issue 38)',
      'W5-mercure',
      t,
      { workload: 'W5-paired', target: t },
      0.8,
    );
  lines.push(...mercureTargetRows(report.measurements, report.idleSubscribers ?? []));
  // Issue 39: each cached server against the floor measured in the same workload and round (reads), and against
  // itself without the cache, the same server kind in the same round (writes).
  for (const [t, uncached] of CACHE_TARGETS) {
    ratioTarget(
      'W1 with the in-process cache ≥ 0.8 × the floor (issue 39)',
      'W1-cached',
      t,
      { workload: 'W1-cached', target: 'floor' },
      0.8,
    );
    ratioTarget(
      'W3 with the in-process cache ≥ 0.8 × the floor (issue 39)',
      'W3-cached',
      t,
      { workload: 'W3-cached', target: 'floor' },
      0.8,
    );
    ratioTarget(
      `W5 with the in-process cache ≥ 0.9 × W5 without it (${uncached}) (issue 39)`,
      'W5-cached',
      t,
      { workload: 'W5', target: uncached },
      0.9,
    );
  }
  both("W6 ≥ 1.0 × baseline's W4", 'W6', { workload: 'W4', target: 'baseline' }, 1.0);
  if (report.workloads.some((w) => w.id === 'W8-deep') && report.workloads.some((w) => w.id === 'W8')) {
    const deep = summarize(report, 'W8-deep', 'bookshop-cursor', {
      workload: 'W8-deep',
      target: 'bookshop-cursor',
    }).p50;
    const first = summarize(report, 'W8', 'bookshop-cursor', { workload: 'W8', target: 'bookshop-cursor' }).p50;
    target('cursor: a deep page ≤ 1.5 × the time of the first page (p50)', deep / first, 1.5, false);
  }
  const partial = report.statements.find((s) => s.label.startsWith('partial page'));
  if (partial)
    target(
      'partial pagination makes no count (COUNT statements for a partial page)',
      (partial.sql ?? []).filter((sql) => /\bcount\(/i.test(sql)).length,
      0,
      false,
    );
  for (const name of ['bookshop', 'bookshop-shipped']) {
    const app = report.servers.find((s) => s.name === name);
    if (!app) continue;
    const suffix = name === 'bookshop' ? '' : `, as shipped (${name})`;
    target(`example app idle RSS ≤ 100 MiB${suffix}`, app.idleRssMiB, 100, false, ' MiB');
    target(`example app start-up ≤ 1.5 s${suffix}`, app.startupMs, 1500, false, ' ms');
  }
  // W7 and W7-mariadb have no target (the database's own work is most of a request): their ratios, for today's build
  // and as shipped.
  const onServers = [
    ['W7', 'PostgreSQL', 'baseline-pg', ['bookshop-pg', 'bookshop-shipped-pg']],
    ['W7-mariadb', 'MariaDB', 'baseline-mariadb', ['bookshop-mariadb', 'bookshop-shipped-mariadb']],
  ] as const;
  for (const [id, database, baseline, targets] of onServers)
    for (const t of targets) {
      if (!report.workloads.some((w) => w.id === id && w.targets.includes(t))) continue;
      const s = summarize(report, id, t, { workload: id, target: baseline });
      lines.push(
        `| ${id} (W1 on ${database}), no target: ${t} | ${fixed(s.rpsRatio, 2)} | ${s.rpsRoundRatios.map((r) => fixed(r, 2)).join(', ')}; ${fixed(s.rpsRatioOfMedians, 2)} | reported |`,
      );
    }
  if (report.workloads.some((w) => w.id === 'W1-deep') && report.workloads.some((w) => w.id === 'W1')) {
    // The issue's target is for cursor pagination (above); the example app pages by offset, so this is its cost for
    // comparison, not a target: an offset makes the database walk every row before the page.
    const deep = summarize(report, 'W1-deep', 'bookshop', { workload: 'W1-deep', target: 'baseline' }).p50;
    const first = summarize(report, 'W1', 'bookshop', { workload: 'W1', target: 'baseline' }).p50;
    if (Number.isFinite(deep / first))
      lines.push(
        '',
        `Offset pagination, for comparison (no target): a deep page (W1-deep) takes ${fixed(deep / first, 1)} × the time of page 3 (W1), p50.`,
      );
  }
  return `${lines.join('\n')}\n`;
}
