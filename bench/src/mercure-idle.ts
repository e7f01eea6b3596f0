/**
 * What idle subscribers cost the app's memory (issue 38): the RSS of a freshly started server, then with 1,000
 * subscriptions to its built-in hub open and nothing published, once the RSS has settled. Run right after the server
 * starts, before any load, so the difference is the subscriptions' and not a heap grown by wrk.
 */
import { booksTopic, subscribeMany } from './mercure-subscribers.js';
import { rssMiB, type ServerProcess } from './processes.js';

export const IDLE_SUBSCRIBERS = 1000;

export interface IdleSubscribersRss {
  readonly server: string;
  readonly subscribers: number;
  /** VmRSS just before the subscriptions opened (the same process, idle). */
  readonly beforeMiB: number;
  /** VmRSS with them open, settled. */
  readonly withMiB: number;
  /** How long opening them all took. */
  readonly connectMs: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Samples the RSS every 500 ms until two samples in a row are within 0.5 MiB (at most 10 s); returns the last. */
async function settledRss(pid: number): Promise<number> {
  let last = rssMiB(pid);
  for (let waited = 0; waited < 10_000; waited += 500) {
    await sleep(500);
    const now = rssMiB(pid);
    if (Math.abs(now - last) < 0.5) return now;
    last = now;
  }
  return last;
}

export async function measureIdleSubscribers(server: ServerProcess): Promise<IdleSubscribersRss> {
  const beforeMiB = await settledRss(server.pid);
  const started = performance.now();
  const subscribers = await subscribeMany(server.port, booksTopic(`http://127.0.0.1:${server.port}`), IDLE_SUBSCRIBERS);
  const connectMs = performance.now() - started;
  try {
    const withMiB = await settledRss(server.pid);
    const dropped = subscribers.filter((s) => s.dropped).length;
    if (dropped > 0) throw new Error(`${server.name}: ${dropped} of ${IDLE_SUBSCRIBERS} idle subscriptions ended`);
    return { server: server.name, subscribers: IDLE_SUBSCRIBERS, beforeMiB, withMiB, connectMs };
  } finally {
    for (const subscriber of subscribers) subscriber.close();
    // The server notices the closed connections and lets its subscriptions go before it is measured again.
    await sleep(500);
  }
}
