/**
 * Every core of one machine: with `WEB_CONCURRENCY` above 1, `main.ts` runs this in the primary process, which serves
 * nothing itself and keeps that many worker processes running the server (Node's `cluster`: the workers share the
 * port, the primary hands each new connection to the next worker in turn).
 *
 * - Workers start one after the other, each once the previous one listens: schema sync and the first admin run in
 *   the first worker alone, not in several at once on an empty database.
 * - A worker that dies after it listened is replaced at once. One that dies before it ever listened (bad database,
 *   bad schema) stops the whole server with exit code 1: restarting it would only fail again, in a loop; the
 *   supervisor (systemd, Kubernetes, …) decides when to try again.
 * - SIGTERM or SIGINT: each worker is told over the IPC channel to shut down gracefully (close-with-grace in the
 *   worker: stop accepting, finish the requests in flight, close the pool). A message rather than a forwarded
 *   signal, because Ctrl-C in a terminal already sent SIGINT to every worker, and a second signal makes a worker
 *   exit at once. The primary exits 0 once every worker exited 0, 1 otherwise or after `shutdownTimeout` (plus a
 *   second's margin for the workers' own timeout). A second signal kills the workers and exits 1.
 */
import cluster, { type Worker } from 'node:cluster';
import type { Logger } from 'pino';

/** The message the primary sends a worker to make it shut down gracefully. */
export interface ShutdownMessage {
  readonly type: 'shutdown';
  readonly signal: string;
}

export const isShutdownMessage = (message: unknown): message is ShutdownMessage =>
  typeof message === 'object' && message !== null && (message as { type?: unknown }).type === 'shutdown';

export interface ClusterOptions {
  /** How many workers to keep running. */
  readonly workers: number;
  /** Milliseconds the workers have to shut down (`SHUTDOWN_TIMEOUT`). */
  readonly shutdownTimeout: number;
  readonly log: Logger;
}

/** Runs the primary: forks the workers, replaces the ones that die, stops them all on SIGTERM / SIGINT. */
export function runPrimary({ workers, shutdownTimeout, log }: ClusterOptions): void {
  const listening = new WeakSet<Worker>();
  // Workers until their 'exit' event: `cluster.workers` drops a worker at its disconnect already, while it may still
  // run.
  const running = new Set<Worker>();
  const live = () => [...running];
  let stopping = false;
  let failed = false;

  const startNext = () => {
    if (stopping || live().length >= workers) return;
    const worker = cluster.fork();
    running.add(worker);
    worker.once('listening', () => {
      listening.add(worker);
      log.info({ worker: worker.process.pid }, 'worker listening');
      startNext();
    });
  };

  const stop = (reason: string) => {
    if (stopping) {
      log.error({ reason }, 'second signal: killing the workers');
      for (const worker of live()) worker.process.kill('SIGKILL');
      process.exit(1);
    }
    stopping = true;
    log.info({ reason, workers: live().length }, 'stopping the workers');
    if (live().length === 0) process.exit(failed ? 1 : 0);
    for (const worker of live()) {
      // A worker still starting has nothing in flight and no close-with-grace yet: the signal's default ends it.
      if (listening.has(worker)) worker.send({ type: 'shutdown', signal: reason } satisfies ShutdownMessage);
      else worker.process.kill('SIGTERM');
    }
    setTimeout(() => {
      log.error(
        { workers: live().map((worker) => worker.process.pid) },
        `workers still running after ${shutdownTimeout} ms: killing them`,
      );
      for (const worker of live()) worker.process.kill('SIGKILL');
      process.exit(1);
    }, shutdownTimeout + 1000).unref();
  };

  cluster.on('exit', (worker, code, signal) => {
    running.delete(worker);
    const pid = worker.process.pid;
    if (stopping) {
      if (code !== 0) failed = true;
      log.info({ worker: pid, code, signal }, 'worker stopped');
      if (live().length === 0) {
        log.info('every worker stopped');
        process.exit(failed ? 1 : 0);
      }
    } else if (listening.has(worker)) {
      log.warn({ worker: pid, code, signal }, 'worker died: starting another');
      startNext();
    } else {
      log.error({ worker: pid, code, signal }, 'a worker stopped before it listened: stopping the server');
      failed = true;
      stop('worker start failed');
    }
  });

  // The first signal stops the workers gracefully; a second one, of either kind, kills them (see `stop`).
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));

  log.info({ workers }, 'starting the workers');
  startNext();
}
