/**
 * A subscriber resuming with `Last-Event-ID` whose history is more than its connection may queue at once
 * (`maxQueuedBytes`): the held updates are written in parts, each as the connection has taken the one before, and the
 * updates published meanwhile go after them, in order. Once all is written, the subscriber joins its group and gets
 * updates as the others do (`builtin-hub.ts`).
 *
 * Queuing the whole history at once would either hold it twice (joined for one write) or drop the subscriber, which
 * would come back with the same `Last-Event-ID` and be dropped again, never to resume. The parts are the held
 * buffers themselves (shared with the history and every other subscriber), joined one part at a time. A connection
 * that takes nothing for long enough that what waits for it passes `maxPendingBytes` is given up, as a slow one is.
 */

/** How often a replay looks whether its connection took the part before (milliseconds). */
const POLL_INTERVAL = 10;

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
  /** The most bytes that may wait for the connection; past them, the subscriber is given up (`onSlow`). */
  readonly maxPendingBytes: number;
  /** Everything was written: the subscriber now gets updates as the others do. */
  readonly onDone: () => void;
  readonly onSlow: () => void;
}

export function sendHistory(options: HistoryReplayOptions): HistoryReplay {
  const { sink, maxQueuedBytes, maxPendingBytes, onDone, onSlow } = options;
  const frames = [...options.frames];
  let next = 0;
  let pending = frames.reduce((bytes, frame) => bytes + frame.length, 0);
  let timer: NodeJS.Timeout | undefined;
  let ended = false;

  function end(): void {
    ended = true;
    if (timer) clearTimeout(timer);
    timer = undefined;
  }

  /** Writes, as one chunk, the frames that fit beside what the connection still holds; then waits, or is done. */
  function writePart(): void {
    timer = undefined;
    if (ended) return;
    const room = maxQueuedBytes - sink.queued();
    const part: Buffer[] = [];
    let bytes = 0;
    while (next < frames.length && bytes + frames[next]!.length <= room) {
      bytes += frames[next]!.length;
      part.push(frames[next++]!);
    }
    if (part.length > 0) {
      // What was written is no longer held here.
      frames.splice(0, next);
      next = 0;
      pending -= bytes;
      sink.write(part.length === 1 ? part[0]! : Buffer.concat(part, bytes));
    }
    if (next === frames.length) {
      end();
      onDone();
    } else if (part.length === 0 && sink.queued() === 0) {
      // One update larger than the connection may hold: it can never be sent.
      end();
      onSlow();
    } else timer = setTimeout(writePart, POLL_INTERVAL);
    // A replay keeps no process running.
    timer?.unref();
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
