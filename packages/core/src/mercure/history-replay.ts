/**
 * A subscriber resuming with `Last-Event-ID` whose history is more than half of what its connection may queue
 * (`maxQueuedBytes`): the held updates are written in parts, each as the connection has room for it, and the updates
 * published meanwhile go after them, in order. Once all is written and the connection took most of it, the subscriber
 * joins its group and gets updates as the others do (`builtin-hub.ts`).
 *
 * Queuing the whole history at once would either hold it twice (joined for one write) or drop the subscriber, which
 * would come back with the same `Last-Event-ID` and be dropped again, never to resume. The parts are the held
 * buffers themselves (shared with the history and every other subscriber), joined one part at a time. One update
 * larger than a connection may hold is written alone once it holds nothing (dropping the subscriber would only bring
 * it back for the same update). A connection that takes nothing while what waits for it passes `maxPendingBytes` is
 * given up, as a slow one is.
 */

import { mergeFrames } from './subscriber-outbox.js';

/** How often a replay looks whether its connection has room for more (milliseconds), at first and at most. */
const POLL_INTERVAL = 10;
const MAX_POLL_INTERVAL = 1_000;

/** Where the parts go: the subscriber's connection (the hub's `SubscriberSink`). */
export interface ReplaySink {
  write(chunk: Buffer): void;
  /** Bytes written and not yet taken by the connection. */
  queued(): number;
}

export interface HistoryReplay {
  /** An update published during the replay, for this subscriber: it goes after the others. */
  add(frame: Buffer): void;
  /** Stops (the subscriber is gone); nothing more is written. */
  cancel(): void;
}

export interface HistoryReplayOptions {
  readonly sink: ReplaySink;
  /** The held updates to resume, oldest first. */
  readonly frames: readonly Buffer[];
  /** The most bytes the connection may hold untaken: no part makes it hold more. */
  readonly maxQueuedBytes: number;
  /** The most bytes that may wait for the connection; past them (updates keep coming), it is given up (`onSlow`). */
  readonly maxPendingBytes: number;
  /** Everything was written: the subscriber now gets updates as the others do. */
  readonly onDone: () => void;
  readonly onSlow: () => void;
}

export function sendHistory(options: HistoryReplayOptions): HistoryReplay {
  const { sink, maxQueuedBytes, maxPendingBytes, onDone, onSlow } = options;
  const frames = [...options.frames];
  let pending = frames.reduce((bytes, frame) => bytes + frame.length, 0);
  let timer: NodeJS.Timeout | undefined;
  let wait = 0;
  let ended = false;

  function end(): void {
    ended = true;
    if (timer) clearTimeout(timer);
    timer = undefined;
  }

  /** The frames that fit beside what the connection holds (one larger than it may hold: alone, once it is empty). */
  function takePart(): { readonly part: Buffer[]; readonly bytes: number } {
    const held = sink.queued();
    const first = frames[0];
    if (held === 0 && first !== undefined && first.length > maxQueuedBytes)
      return { part: frames.splice(0, 1), bytes: first.length };
    let bytes = 0;
    let count = 0;
    while (count < frames.length && held + bytes + frames[count]!.length <= maxQueuedBytes)
      bytes += frames[count++]!.length;
    return { part: frames.splice(0, count), bytes };
  }

  /** Writes, as one chunk, the frames that fit; then waits for room, or hands the subscriber over. */
  function writePart(): void {
    timer = undefined;
    if (ended) return;
    const { part, bytes } = takePart();
    if (part.length > 0) {
      pending -= bytes;
      sink.write(mergeFrames(part, bytes));
    }
    // Handed over once everything was written and the connection took most of it: the subscriber then has the room
    // of a new one, and a burst right after does not drop it.
    if (frames.length === 0 && sink.queued() <= maxQueuedBytes / 2) {
      end();
      onDone();
      return;
    }
    // A connection that takes nothing is looked at less and less often (a stalled client costs no steady polling).
    wait = part.length > 0 ? POLL_INTERVAL : Math.min(Math.max(wait, POLL_INTERVAL) * 2, MAX_POLL_INTERVAL);
    timer = setTimeout(writePart, wait);
    // A replay keeps no process running.
    timer.unref();
  }

  // The first part leaves once the subscription's response started.
  timer = setTimeout(writePart, 0);
  timer.unref();

  return {
    add(frame) {
      if (ended) return;
      frames.push(frame);
      pending += frame.length;
      if (pending > maxPendingBytes) {
        end();
        onSlow();
      }
    },
    cancel: end,
  };
}
