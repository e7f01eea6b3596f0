/**
 * Figures and checks of a soak run. Figures: throughput, latency percentiles of the answered and of the 503
 * requests, counts by status, the outage as the clients saw it, the recovery time, readiness, memory. Checks: each
 * a sentence that held or not; one that failed makes the run fail.
 */
import type { Outcome, ProbeRecord, RequestRecord } from './clients.js';
import type { Verification } from './ledger.js';
import type { Restart } from './postgres.js';

/** After PostgreSQL is back, 503s are still allowed this long (the Retry-After the app sends). */
export const GRACE_MS = 5_000;

export interface RunFacts {
  readonly durationMs: number;
  readonly clients: number;
  readonly rate: number;
  readonly hangAfter: number;
  readonly maxRssMb: number;
  readonly records: readonly RequestRecord[];
  readonly probes: readonly ProbeRecord[];
  readonly restart: Restart | undefined;
  readonly verification: Verification;
  readonly surprises: readonly string[];
  readonly staleReads: readonly string[];
  readonly rss: ReadonlyArray<readonly [number, number]>;
  readonly aliveAtEnd: boolean;
  readonly exitCode: number | null;
  readonly serverErrors: readonly string[];
  readonly serverOther: readonly string[];
  readonly logFile: string;
}

export interface Check {
  readonly name: string;
  readonly ok: boolean;
  readonly detail: string;
}

/** The operations that must answer again after the outage (POST author is too rare to be sure to come up). */
const MAIN_OPERATIONS = ['GET collection', 'GET item', 'POST book', 'PATCH book'] as const;

const percentile = (sorted: readonly number[], p: number): number =>
  sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
const ms = (value: number): string =>
  Number.isNaN(value) ? '-' : value >= 1000 ? `${(value / 1000).toFixed(2)} s` : `${value.toFixed(1)} ms`;
const seconds = (value: number): string => `${(value / 1000).toFixed(2)} s`;
const isSuccess = (outcome: Outcome): boolean => typeof outcome === 'number' && outcome < 300;

function latencies(records: readonly RequestRecord[]): { p50: number; p99: number; max: number; count: number } {
  const sorted = records.map((record) => record.duration).sort((a, b) => a - b);
  return {
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    max: sorted.at(-1) ?? Number.NaN,
    count: sorted.length,
  };
}

export interface Summary {
  readonly figures: Record<string, unknown>;
  readonly checks: readonly Check[];
  readonly text: string;
}

export function summarize(facts: RunFacts): Summary {
  const { records, probes, restart, verification } = facts;
  const byStatus = new Map<string, number>();
  for (const record of records) byStatus.set(String(record.outcome), (byStatus.get(String(record.outcome)) ?? 0) + 1);
  const successes = records.filter((record) => isSuccess(record.outcome));
  const failures = records.filter((record) => !isSuccess(record.outcome));
  const unavailable = records.filter((record) => record.outcome === 503);
  const byOperation = new Map<string, RequestRecord[]>();
  for (const record of successes)
    byOperation.set(record.operation, [...(byOperation.get(record.operation) ?? []), record]);

  // The outage as clients saw it: from the first failed request's start to the last failed request's answer.
  const firstFailure = failures[0] && Math.min(...failures.map((record) => record.start));
  const lastFailureEnd = failures[0] && Math.max(...failures.map((record) => record.start + record.duration));
  const lastFailureStart = failures[0] && Math.max(...failures.map((record) => record.start));
  const firstSuccessAfter =
    lastFailureStart === undefined ? undefined : successes.find((record) => record.start > lastFailureStart);
  const notReady = probes.filter((probe) => probe.ready !== 200);
  const readyAgain =
    notReady.length === 0 ? undefined : probes.find((probe) => probe.at > notReady.at(-1)!.at && probe.ready === 200);
  const rssValues = facts.rss.map(([, mb]) => mb);
  const rssMax = rssValues.length ? Math.max(...rssValues) : Number.NaN;
  const afterWarmUp = facts.rss.find(([second]) => second >= 10)?.[1] ?? rssValues[0] ?? Number.NaN;

  const figures = {
    requests: records.length,
    throughput: records.length / (facts.durationMs / 1000),
    byStatus: Object.fromEntries([...byStatus].sort()),
    answered: latencies(successes),
    unavailable: latencies(unavailable),
    byOperation: Object.fromEntries([...byOperation].map(([operation, list]) => [operation, latencies(list)])),
    writes: {
      ackedBooks: verification.ackedBooks,
      ackedAuthors: verification.ackedAuthors,
      ackedPatches: verification.ackedPatches,
      unknownOutcome: verification.unknownOutcome,
      committedDespite503: verification.committedDespite503,
    },
    restart: restart && {
      begin: restart.begin,
      end: restart.end,
      took: restart.end - restart.begin,
      databaseDown: restart.down,
      databaseUp: restart.up,
    },
    databaseOutage: restart?.down !== undefined && restart.up !== undefined ? restart.up - restart.down : undefined,
    clientOutage:
      firstFailure === undefined
        ? undefined
        : { first: firstFailure, lastAnswered: lastFailureEnd, span: lastFailureEnd! - firstFailure },
    recovery:
      restart && firstSuccessAfter
        ? {
            firstSuccessAfterOutage: firstSuccessAfter.start,
            afterDatabaseUp: firstSuccessAfter.start - (restart.up ?? restart.end),
            afterRestartBegan: firstSuccessAfter.start - restart.begin,
          }
        : undefined,
    readiness: {
      probes: probes.length,
      notReady: notReady.length,
      firstNotReady: notReady[0]?.at,
      readyAgain: readyAgain?.at,
    },
    rssMb: { afterWarmUp, max: rssMax, end: rssValues.at(-1) },
    exitCode: facts.exitCode,
  };

  const allowedFrom = restart ? restart.begin : Number.POSITIVE_INFINITY;
  // PostgreSQL is back when the probe connects again (pg_ctlcluster itself returns a few seconds later).
  const allowedUntil = restart ? Math.min(restart.up ?? restart.end, restart.end) + GRACE_MS : Number.NEGATIVE_INFINITY;
  const hung = records.filter((record) => record.outcome === 'hang');
  const network = records.filter((record) => record.outcome === 'network');
  const otherStatuses = records.filter(
    (record) => typeof record.outcome === 'number' && !isSuccess(record.outcome) && record.outcome !== 503,
  );
  const outside = unavailable.filter(
    (record) => record.start + record.duration < allowedFrom || record.start > allowedUntil,
  );
  const malformed = unavailable.filter((record) => record.wellFormed503 === false);
  const afterGrace = successes.filter((record) => record.start > allowedUntil);
  const operationsAfter = new Set(afterGrace.map((record) => record.operation));
  const lastProbe = probes.at(-1);
  const notLive = probes.filter((probe) => probe.live !== 200);

  const checks: Check[] = [
    {
      name: 'no request hung',
      ok: hung.length === 0,
      detail: `${hung.length} without an answer within ${seconds(facts.hangAfter)}; slowest answer ${ms(Math.max(0, ...records.map((r) => r.duration)))}`,
    },
    {
      name: 'the app never dropped a connection',
      ok: network.length === 0,
      detail: `${network.length} connection errors between the clients and the app`,
    },
    {
      name: 'only 2xx and 503 answers',
      ok: otherStatuses.length === 0,
      detail:
        otherStatuses.length === 0
          ? 'none other'
          : `${otherStatuses.length}: ${facts.surprises.slice(0, 3).join(' | ')}`,
    },
    {
      name: '503s only during the outage',
      ok: outside.length === 0,
      detail: restart
        ? `${unavailable.length} 503s, ${outside.length} outside [restart, PostgreSQL back + ${seconds(GRACE_MS)}]`
        : `${unavailable.length} 503s without a restart`,
    },
    {
      name: 'every 503 is a hydra:Error with Retry-After: 5',
      ok: malformed.length === 0,
      detail: `${malformed.length} of ${unavailable.length} not`,
    },
    {
      name: 'the app recovered by itself',
      ok:
        !restart ||
        (MAIN_OPERATIONS.every((operation) => operationsAfter.has(operation)) &&
          !failures.some((record) => record.start > allowedUntil)),
      detail: restart
        ? `${afterGrace.length} answered requests after PostgreSQL was back (operations: ${[...operationsAfter].join(', ')}); failures after the grace: ${failures.filter((record) => record.start > allowedUntil).length}`
        : 'no restart',
    },
    {
      // Probes run every 250 ms: an outage under a second may fall between two.
      name: 'readiness said 503 during the outage and 200 at the end',
      ok: (!restart || (figures.databaseOutage ?? 0) < 1000 || notReady.length > 0) && lastProbe?.ready === 200,
      detail: `${notReady.length} of ${probes.length} probes not ready; last probe ${String(lastProbe?.ready)}`,
    },
    {
      name: 'liveness always 200',
      ok: notLive.length === 0,
      detail: `${notLive.length} of ${probes.length} probes not 200`,
    },
    {
      name: 'no acknowledged write lost',
      ok: verification.lost.length === 0,
      detail:
        verification.lost.length === 0
          ? `${verification.ackedBooks} books, ${verification.ackedAuthors} authors, ${verification.ackedPatches} PATCHes, all present with their values`
          : verification.lost.slice(0, 5).join('; '),
    },
    {
      name: 'no row that no request wrote',
      ok: verification.phantoms.length === 0,
      detail: verification.phantoms.length === 0 ? 'none' : verification.phantoms.slice(0, 5).join('; '),
    },
    {
      name: 'each client read back what it wrote',
      ok: facts.staleReads.length === 0,
      detail:
        facts.staleReads.length === 0
          ? `${byOperation.get('GET item')?.length ?? 0} reads of own books`
          : facts.staleReads.slice(0, 3).join('; '),
    },
    {
      name: 'PostgreSQL restarted',
      ok: !restart || (restart.error === undefined && restart.down !== undefined && restart.up !== undefined),
      detail: restart
        ? (restart.error ??
          `pg_ctlcluster restart took ${seconds(restart.end - restart.begin)}; direct connections failed for ${figures.databaseOutage === undefined ? '-' : seconds(figures.databaseOutage)}`)
        : 'not asked (--no-restart)',
    },
    {
      name: 'the process stayed alive, and exited 0 on SIGTERM',
      ok: facts.aliveAtEnd && facts.exitCode === 0,
      detail: `alive at the end: ${facts.aliveAtEnd}; exit code ${String(facts.exitCode)}`,
    },
    {
      name: 'no error logged by the server',
      ok: facts.serverErrors.length === 0,
      detail: facts.serverErrors.length === 0 ? 'none' : facts.serverErrors.slice(0, 2).join(' | '),
    },
    {
      name: 'the server log is JSON lines only',
      ok: facts.serverOther.length === 0,
      detail:
        facts.serverOther.length === 0
          ? 'every line parses'
          : `${facts.serverOther.length} other lines, e.g. ${facts.serverOther[0]!.slice(0, 120)}`,
    },
    {
      name: `resident memory under ${facts.maxRssMb} MB`,
      ok: rssMax <= facts.maxRssMb,
      detail: `${afterWarmUp.toFixed(0)} MB after 10 s, ${rssMax.toFixed(0)} MB at most, ${(rssValues.at(-1) ?? Number.NaN).toFixed(0)} MB at the end`,
    },
  ];

  const lines = [
    `Soak: ${seconds(facts.durationMs)} of load, ${facts.clients} clients, ${facts.rate || 'unlimited'} req/s target`,
    `  requests        ${records.length} (${figures.throughput.toFixed(1)}/s); by status ${JSON.stringify(figures.byStatus)}`,
    `  answered (2xx)  p50 ${ms(figures.answered.p50)}, p99 ${ms(figures.answered.p99)}, max ${ms(figures.answered.max)}`,
    ...[...byOperation].map(([operation, list]) => {
      const l = latencies(list);
      return `    ${operation.padEnd(15)} ${String(l.count).padStart(6)}  p50 ${ms(l.p50)}, p99 ${ms(l.p99)}, max ${ms(l.max)}`;
    }),
    `  503             ${unavailable.length}: p50 ${ms(figures.unavailable.p50)}, p99 ${ms(figures.unavailable.p99)}, max ${ms(figures.unavailable.max)}`,
    `  writes          ${verification.ackedBooks} books, ${verification.ackedAuthors} authors, ${verification.ackedPatches} PATCHes acknowledged; ${verification.unknownOutcome} answered 503 (outcome unknown), of which ${verification.committedDespite503} committed anyway`,
    restart
      ? `  restart         pg_ctlcluster at ${seconds(restart.begin)}, returned at ${seconds(restart.end)}; a direct connection failed from ${restart.down === undefined ? '-' : seconds(restart.down)} to ${restart.up === undefined ? '-' : seconds(restart.up)} (PostgreSQL's outage: ${figures.databaseOutage === undefined ? '-' : seconds(figures.databaseOutage)})`
      : '  restart         none',
    figures.clientOutage
      ? `  client outage   first failure at ${seconds(figures.clientOutage.first)}, last answered at ${seconds(figures.clientOutage.lastAnswered!)}: ${seconds(figures.clientOutage.span)}`
      : '  client outage   no failed request',
    figures.recovery
      ? `  recovery        first success after the outage at ${seconds(figures.recovery.firstSuccessAfterOutage)}: ${seconds(figures.recovery.afterRestartBegan)} after the restart began, ${seconds(figures.recovery.afterDatabaseUp)} after the direct connection succeeded again`
      : '  recovery        -',
    `  readiness       ${notReady.length} of ${probes.length} probes not ready${notReady[0] ? ` (first at ${seconds(notReady[0].at)}, 200 again at ${readyAgain ? seconds(readyAgain.at) : 'never'})` : ''}`,
    `  memory (RSS)    ${afterWarmUp.toFixed(0)} MB after 10 s, ${rssMax.toFixed(0)} MB at most, ${(rssValues.at(-1) ?? Number.NaN).toFixed(0)} MB at the end`,
    `  server log      ${facts.logFile}`,
    '',
    'Checks:',
    ...checks.map((check) => `  ${check.ok ? 'PASS' : 'FAIL'}  ${check.name}: ${check.detail}`),
  ];
  return { figures, checks, text: lines.join('\n') };
}
