/**
 * Mercure subscribers for the bench (W5-mercure, and the idle RSS with 1,000 subscribers): plain TCP connections that
 * send a `GET` of the app's built-in hub, check that it answers `200` with a `text/event-stream`, and then, instead of
 * parsing every event, only look for the markers of the sampled writes (`sampleTitle`) in the bytes they receive,
 * noting when each arrived.
 *
 * Not the `eventsource` package, nor even `node:http`: at W5's rate, 100 subscribers receive about a million events a
 * second, and they run in the bench's process on the cores the server and wrk use. A full parser (an event object and
 * a dispatch per event) would take CPU from the server being measured. So would Node's HTTP client: its parser, a
 * stream and a new buffer for each read, which at this rate (about 12,000 reads of 9 KB a second) kept the bench's
 * garbage collector busy 40 % of its time and the bench at a third to a half of a core. Each connection reads into one
 * buffer of its own, reused for every read (`net.connect`'s `onread`), and a `Buffer.indexOf` per read finds the
 * markers: the body's chunked framing is never parsed, and needs not be, since the hub writes whole events in each
 * chunk (a marker is never cut by a chunk's size line, only by TCP, which the tail below covers).
 */
import { connect, type Socket } from 'node:net';

/** What the sampled writes put in their title, then `SAMPLE_DIGITS` digits: their number. */
const MARKER = Buffer.from('mercure-sample-');
const SAMPLE_DIGITS = 6;
const MARKED_LENGTH = MARKER.length + SAMPLE_DIGITS;
/** Bytes of one read: more than the hub writes a subscriber in one turn under W5 (about 9 KB). */
const READ_BUFFER_BYTES = 64 * 1024;
const HEAD_END = Buffer.from('\r\n\r\n');

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
 * event stream (it sends a comment at once, so the headers leave before any update). Each subscription is a
 * connection of its own, closed with it.
 */
export function subscribe(port: number, topic: string): Promise<Subscriber> {
  return new Promise((resolve, reject) => {
    const arrivals = new Map<number, number>();
    let dropped = false;
    let closing = false;
    let settled = false;
    // The response's head, until its blank line has arrived (it may come in pieces).
    let head: Buffer | null = Buffer.alloc(0);
    // The last `MARKED_LENGTH - 1` bytes of the previous read (the read buffer is overwritten by the next one), and
    // room to join them with the start of the next read: a marker cut in two by TCP is found across the boundary.
    const boundary = Buffer.alloc(2 * (MARKED_LENGTH - 1));
    let tailLength = 0;
    /** Notes the markers that start before `before` and end within the first `end` bytes of `bytes`. */
    const note = (bytes: Buffer, end: number, before: number, at: number) => {
      for (let i = bytes.indexOf(MARKER); i !== -1 && i < before; i = bytes.indexOf(MARKER, i + 1)) {
        if (i + MARKED_LENGTH > end) break;
        const n = Number(bytes.toString('latin1', i + MARKER.length, i + MARKED_LENGTH));
        if (Number.isInteger(n) && !arrivals.has(n)) arrivals.set(n, at);
      }
    };
    const fail = (error: Error) => {
      if (settled) return;
      settled = true;
      closing = true;
      socket.destroy();
      reject(error);
    };
    /** The body bytes of one read. */
    const body = (bytes: Buffer, at: number) => {
      const keep = MARKED_LENGTH - 1;
      // Only markers that start in the tail: those wholly in this read are found below. Without the marker's first
      // byte in the tail, no copy is made.
      const first = boundary.indexOf(MARKER[0] as number);
      if (first !== -1 && first < tailLength) {
        const joined = tailLength + bytes.copy(boundary, tailLength, 0, keep);
        note(boundary, joined, tailLength, at);
      }
      note(bytes, bytes.length, bytes.length, at);
      // Keep the last bytes; a read shorter than a marker (a heartbeat) keeps some of the tail before it.
      if (bytes.length >= keep) tailLength = bytes.copy(boundary, 0, bytes.length - keep);
      else {
        const old = Math.min(tailLength, keep - bytes.length);
        boundary.copy(boundary, 0, tailLength - old, tailLength);
        tailLength = old + bytes.copy(boundary, old);
      }
    };
    const socket: Socket = connect({
      host: '127.0.0.1',
      port,
      onread: {
        buffer: Buffer.allocUnsafe(READ_BUFFER_BYTES),
        callback: (nread: number, buffer: Uint8Array) => {
          const at = performance.now();
          // A view of this read's bytes: a search must not run on into what earlier reads left in the buffer.
          const bytes = (buffer as Buffer).subarray(0, nread);
          if (head === null) {
            body(bytes, at);
            return true;
          }
          head = Buffer.concat([head, bytes]);
          const end = head.indexOf(HEAD_END);
          if (end === -1) return true;
          const text = head.toString('latin1', 0, end);
          const rest = head.subarray(end + HEAD_END.length);
          head = null;
          const status = /^HTTP\/1\.1 (\d{3})/.exec(text)?.[1];
          const type = /\r\ncontent-type:\s*([^\r]*)/i.exec(text)?.[1] ?? '';
          if (status !== '200' || !type.startsWith('text/event-stream')) {
            fail(new Error(`The hub answered ${String(status)} (${type}) to a subscription`));
            return false;
          }
          if (rest.length > 0) body(rest, at);
          settled = true;
          resolve({
            arrivals,
            get dropped() {
              return dropped;
            },
            close() {
              closing = true;
              socket.destroy();
            },
          });
          return true;
        },
      },
    });
    socket.once('connect', () =>
      socket.write(
        `GET /.well-known/mercure?topic=${encodeURIComponent(topic)} HTTP/1.1\r\n` +
          `Host: 127.0.0.1:${port}\r\nAccept: text/event-stream\r\n\r\n`,
      ),
    );
    socket.on('close', () => {
      if (!settled) fail(new Error('The hub closed a subscription before answering'));
      else if (!closing) dropped = true;
    });
    socket.on('error', (error) => {
      if (closing) return;
      if (!settled) fail(error);
      else dropped = true;
    });
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
