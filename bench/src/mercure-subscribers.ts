/**
 * Mercure subscribers for the bench (W5-mercure, and the idle RSS with 1,000 subscribers): plain `node:http` GETs of
 * the app's built-in hub that keep the `text/event-stream` response open and, instead of parsing every event, only
 * look for the markers of the sampled writes (`sampleTitle`) in the bytes they receive, noting when each arrived.
 *
 * Not the `eventsource` package: at W5's rate, 100 subscribers receive about a million events a second, and they run
 * in the bench's process on the cores the server and wrk use. A full parser (an event object and a dispatch per
 * event) would take CPU from the server being measured; a `Buffer.indexOf` per chunk takes little.
 */
import { type ClientRequest, request as httpRequest, type IncomingMessage } from 'node:http';

/** What the sampled writes put in their title, then `SAMPLE_DIGITS` digits: their number. */
const MARKER = Buffer.from('mercure-sample-');
const SAMPLE_DIGITS = 6;
const MARKED_LENGTH = MARKER.length + SAMPLE_DIGITS;

/** The title of the sampled write number `n`: the marker its event is recognised by (at least 3 characters, ASCII). */
export function sampleTitle(n: number): string {
  return `${MARKER.toString()}${String(n).padStart(SAMPLE_DIGITS, '0')}`;
}

/** The topic selector that covers every book of the app at `origin`, as API Platform Admin subscribes to a list. */
export function booksTopic(origin: string): string {
  return `${origin}/api/books/{id}`;
}

export interface Subscriber {
  /** `performance.now()` when the event of sampled write `n` arrived (the first time), by `n`. */
  readonly arrivals: Map<number, number>;
  /** Whether the hub (or the network) ended the subscription before `close()`: its later events are lost. */
  readonly dropped: boolean;
  close(): void;
}

/**
 * Opens one subscription to `topic` on the hub of the server at `port`; resolves once the hub answered `200` with an
 * event stream (it sends a comment at once, so the headers leave before any update). Each subscription has its own
 * connection (`agent: false`): no pool limits how many are open, and none is reused once closed.
 */
export function subscribe(port: number, topic: string): Promise<Subscriber> {
  return new Promise((resolve, reject) => {
    const arrivals = new Map<number, number>();
    let dropped = false;
    let closing = false;
    // The last bytes of the previous chunk: a marker cut in two by the chunking is found across the boundary.
    let tail: Buffer = Buffer.alloc(0);
    const note = (bytes: Buffer, before: number, at: number) => {
      for (let i = bytes.indexOf(MARKER); i !== -1 && i < before; i = bytes.indexOf(MARKER, i + 1)) {
        if (i + MARKED_LENGTH > bytes.length) break;
        const n = Number(bytes.toString('latin1', i + MARKER.length, i + MARKED_LENGTH));
        if (Number.isInteger(n) && !arrivals.has(n)) arrivals.set(n, at);
      }
    };
    const client: ClientRequest = httpRequest(
      {
        host: '127.0.0.1',
        port,
        path: `/.well-known/mercure?topic=${encodeURIComponent(topic)}`,
        headers: { accept: 'text/event-stream' },
        agent: false,
      },
      (response: IncomingMessage) => {
        const type = response.headers['content-type'] ?? '';
        if (response.statusCode !== 200 || !type.startsWith('text/event-stream')) {
          response.resume();
          client.destroy();
          reject(new Error(`The hub answered ${String(response.statusCode)} (${type}) to a subscription`));
          return;
        }
        response.on('data', (chunk: Buffer) => {
          const at = performance.now();
          // A marker that starts in the tail starts with its first byte: without one there, no copy is made.
          if (tail.indexOf(MARKER[0] as number) !== -1) {
            // Only markers that start in the tail: those wholly in the chunk are found there.
            const boundary = Buffer.concat([tail, chunk.subarray(0, MARKED_LENGTH - 1)]);
            note(boundary, tail.length, at);
          }
          note(chunk, chunk.length, at);
          // A chunk shorter than a marker (a heartbeat) keeps some of the tail before it.
          const last = chunk.length >= MARKED_LENGTH - 1 ? chunk : Buffer.concat([tail, chunk]);
          tail = last.subarray(Math.max(0, last.length - (MARKED_LENGTH - 1)));
        });
        response.on('close', () => {
          if (!closing) dropped = true;
        });
        resolve({
          arrivals,
          get dropped() {
            return dropped;
          },
          close() {
            closing = true;
            client.destroy();
          },
        });
      },
    );
    client.on('error', (error) => {
      if (closing) return;
      dropped = true;
      reject(error);
    });
    client.end();
  });
}

/**
 * Opens `count` subscriptions, `batch` at a time (a burst of a thousand connections at once could overflow the
 * server's listen backlog and be retried after a second by the kernel). Closes those it opened if one fails.
 */
export async function subscribeMany(port: number, topic: string, count: number, batch = 100): Promise<Subscriber[]> {
  const subscribers: Subscriber[] = [];
  while (subscribers.length < count) {
    const size = Math.min(batch, count - subscribers.length);
    const opened = await Promise.allSettled(Array.from({ length: size }, () => subscribe(port, topic)));
    for (const result of opened) if (result.status === 'fulfilled') subscribers.push(result.value);
    const failed = opened.find((result) => result.status === 'rejected');
    if (failed) {
      for (const subscriber of subscribers) subscriber.close();
      throw new Error(`${subscribers.length} subscriptions open, then: ${String(failed.reason)}`);
    }
  }
  return subscribers;
}
