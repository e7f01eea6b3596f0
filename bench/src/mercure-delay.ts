/**
 * The delay of W5-mercure: from a write's response to its event at the subscribers. wrk cannot timestamp its own
 * requests one by one, so beside it a sampler makes writes of its own (a POST every `SAMPLE_EVERY_MS`, each with a
 * numbered marker in its title), noting when each response arrived; the subscribers note when each marker's event
 * arrived (`mercure-subscribers.ts`). Both clocks are this process's `performance.now()`. The delay can be below zero:
 * the update is published beside the response, and its event may come first.
 */
import { quantile } from './figures.js';
import { type Subscriber, sampleTitle } from './mercure-subscribers.js';

/** One sampled write every 25 ms: 200 in a 5 s measurement, a load of 40 req/s beside wrk's thousands. */
const SAMPLE_EVERY_MS = 25;
/** How long, after the last sampled write, the events still missing are waited for before counting them lost. */
const SETTLE_MS = 10_000;

export interface DelayFigures {
  readonly subscribers: number;
  /** Sampled writes answered `201`; their events are the ones expected. */
  readonly samples: number;
  /** Sampled writes that failed (no answer, or another status). */
  readonly failedSamples: number;
  /** `samples` × `subscribers`. */
  readonly expected: number;
  /** Of those, the events that arrived. */
  readonly received: number;
  /** Subscriptions the hub ended before the bench did (a slow subscriber is dropped by the hub). */
  readonly dropped: number;
  /** Over every (sampled write, subscriber) pair received; NaN when none was. */
  readonly p50Ms: number;
  readonly p95Ms: number;
  readonly maxMs: number;
  /**
   * The CPU the bench's own process used while sampling (the subscribers reading, the sampled writes), in cores: what
   * the client side took from the cores the server and wrk share.
   */
  readonly benchCores: number;
}

export interface Sampler {
  /** Stops sampling, waits for the events of the sampled writes, and returns the figures. */
  finish(subscribers: readonly Subscriber[]): Promise<DelayFigures>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Starts the sampled writes on the server at `port`: a book by author 7, as W5's, with a marker for a title. */
export function startSampler(port: number): Sampler {
  const responses = new Map<number, number>();
  const inFlight = new Set<Promise<void>>();
  let failed = 0;
  const startedAt = performance.now();
  const cpuAtStart = process.cpuUsage();
  const write = async (n: number) => {
    try {
      const response = await fetch(`http://127.0.0.1:${port}/api/books`, {
        method: 'POST',
        headers: { accept: 'application/ld+json', 'content-type': 'application/ld+json' },
        body: JSON.stringify({ title: sampleTitle(n), author: '/api/authors/7' }),
        signal: AbortSignal.timeout(30_000),
      });
      // The headers are the response: the earliest the writer could know its write is done.
      const at = performance.now();
      await response.arrayBuffer();
      if (response.status === 201) responses.set(n, at);
      else failed++;
    } catch {
      failed++;
    }
  };
  // On a fixed schedule, without waiting for the previous write: under wrk's load a response takes longer than the
  // interval, and waiting for it would thin the samples out.
  let n = 0;
  const timer = setInterval(() => {
    const writing = write(++n);
    inFlight.add(writing);
    void writing.finally(() => inFlight.delete(writing));
  }, SAMPLE_EVERY_MS);

  return {
    async finish(subscribers) {
      clearInterval(timer);
      const cpu = process.cpuUsage(cpuAtStart);
      const benchCores = (cpu.user + cpu.system) / 1000 / (performance.now() - startedAt);
      await Promise.all(inFlight);
      const complete = (s: Subscriber) => s.dropped || [...responses.keys()].every((n) => s.arrivals.has(n));
      const deadline = performance.now() + SETTLE_MS;
      while (!subscribers.every(complete) && performance.now() < deadline) await sleep(50);
      const delays: number[] = [];
      for (const subscriber of subscribers)
        for (const [n, answered] of responses) {
          const arrived = subscriber.arrivals.get(n);
          if (arrived !== undefined) delays.push(arrived - answered);
        }
      delays.sort((a, b) => a - b);
      return {
        subscribers: subscribers.length,
        samples: responses.size,
        failedSamples: failed,
        expected: responses.size * subscribers.length,
        received: delays.length,
        dropped: subscribers.filter((s) => s.dropped).length,
        p50Ms: quantile(delays, 0.5),
        p95Ms: quantile(delays, 0.95),
        maxMs: delays.length > 0 ? (delays[delays.length - 1] as number) : Number.NaN,
        benchCores,
      };
    },
  };
}
