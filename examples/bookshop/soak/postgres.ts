/**
 * The fault: the local PostgreSQL cluster stopped with `pg_ctlcluster` (fast shutdown: sessions are terminated, then
 * connections are refused), kept down `downFor` ms, and started again; with `downFor` 0, one `pg_ctlcluster restart`
 * (the server is gone for a fraction of a second). A `CHECKPOINT` first writes the dirty
 * pages while the server still serves, so the shutdown checkpoint is short and the outage is the restart itself
 * (without it, a restart on a busy server waited ten seconds for a spread checkpoint to finish). Beside it, a probe
 * opens a new connection every 100 ms and runs `select 1`, to time the outage as the database itself has it.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { openDatabase } from '@resource-api/core';

export interface Restart {
  /** Milliseconds since the load started: when the restart began and when pg_ctlcluster returned. */
  readonly begin: number;
  readonly end: number;
  /** When the probe first failed, and when it first succeeded after that: PostgreSQL's own outage. */
  readonly down: number | undefined;
  readonly up: number | undefined;
  readonly error: string | undefined;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** knex's warnings about the refused connections the probe expects: not printed. */
const quiet = { warn: () => {}, error: () => {}, debug: () => {} };

/** One fresh connection and `select 1`: true when PostgreSQL answers. */
async function answers(url: string): Promise<boolean> {
  try {
    const database = await openDatabase({ url, log: quiet });
    try {
      await database.knex.raw('select 1');
      return true;
    } finally {
      await database.close();
    }
  } catch {
    return false;
  }
}

/** Stops and starts the cluster `at` ms after `origin` (a `performance.now()`), timing it. */
export async function restartPostgres(options: {
  url: string;
  cluster: readonly [string, string];
  origin: number;
  at: number;
  downFor: number;
}): Promise<Restart> {
  const { url, origin } = options;
  const now = () => performance.now() - origin;
  await sleep(Math.max(0, options.at - now()));
  const database = await openDatabase({ url });
  await database.knex.raw('CHECKPOINT').finally(() => database.close());

  let down: number | undefined;
  let up: number | undefined;
  let restarting = true;
  const probe = (async () => {
    // Until PostgreSQL answers again after failing, or the restart is over without a failure seen; a minute at most.
    const giveUp = now() + 60_000;
    while (up === undefined && (restarting || down !== undefined) && now() < giveUp) {
      const at = now();
      const ok = await answers(url);
      if (!ok && down === undefined) down = at;
      if (ok && down !== undefined) up = at;
      await sleep(100);
    }
  })();

  const begin = now();
  let error: string | undefined;
  try {
    const pgCtlCluster = (action: string) =>
      promisify(execFile)('pg_ctlcluster', ['--skip-systemctl-redirect', ...options.cluster, action], {
        timeout: 60_000,
      });
    if (options.downFor > 0) {
      try {
        await pgCtlCluster('stop');
        await sleep(options.downFor);
      } finally {
        // Whatever happened, the shared server must come back.
        await pgCtlCluster('start');
      }
    } else {
      await pgCtlCluster('restart');
    }
  } catch (caught) {
    error = `pg_ctlcluster failed: ${String((caught as { stderr?: string }).stderr || caught)}`.trim();
  }
  const end = now();
  restarting = false;
  await probe;
  return { begin, end, down, up, error };
}
