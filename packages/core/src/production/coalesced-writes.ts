/**
 * Coalesced writes: the responses finished during one turn of the event loop are written to their sockets together,
 * at the end of that turn (`setImmediate`), instead of each as soon as it is ready.
 *
 * Why: writing a response to a client that is waiting for it wakes that client. On loopback, and on a virtual machine
 * most of all, the wake-up (an interrupt to the other CPU) is paid inside the server's own `writev`: measured on the
 * bench's 2-CPU host, a large part of an item GET's CPU time. When a turn answers several requests (a busy server
 * always has several waiting), writing the answers back to back lets the client (a proxy on the same host, a load
 * balancer, wrk) find them all awake instead of being woken by each (the figures: docs/performance.md, "Coalesced
 * writes").
 *
 * The cost: a response waits for the rest of its turn. `maxDelayMs` bounds that: once the oldest waiting response has
 * waited that long, the next one ready writes them all at once. A lone request (an idle server) waits only for the end
 * of its own turn, a few microseconds. Nothing else changes: every onSend hook still runs, in order, and the response's
 * bytes are the ones it would have had.
 */
import type { FastifyReply, onSendHookHandler } from 'fastify';

/** The `coalesceWrites` option of the plugin: how long a finished response may wait for the others of its turn. */
export interface CoalescedWritesOptions {
  /** How long the first response of a turn may wait for the others, in milliseconds (default 1). */
  readonly maxDelayMs?: number;
}

type Release = (error: null, payload: unknown) => void;

/** The `onSend` hook that holds each response until the end of its turn; one for every route it serves (one batch). */
export function createCoalescedWrites(options: CoalescedWritesOptions): onSendHookHandler {
  const maxDelay = options.maxDelayMs ?? 1;
  if (!(typeof maxDelay === 'number' && maxDelay >= 0 && Number.isFinite(maxDelay))) {
    throw new TypeError(
      `coalesceWrites.maxDelayMs must be a number of milliseconds from 0 up, got ${String(maxDelay)}.`,
    );
  }
  // Flat triples (release, payload, reply): no object per response.
  let waiting: unknown[] = [];
  let firstAt = 0;

  const writeAll = (): void => {
    const batch = waiting;
    if (batch.length === 0) return;
    waiting = [];
    for (let index = 0; index < batch.length; index += 3) {
      write(batch[index] as Release, batch[index + 1], batch[index + 2] as FastifyReply);
    }
  };

  return (_request, reply, payload, done) => {
    const now = performance.now();
    if (waiting.length === 0) {
      firstAt = now;
      setImmediate(writeAll);
    }
    waiting.push(done, payload, reply);
    if (now - firstAt >= maxDelay) writeAll();
  };
}

/**
 * Lets Fastify go on with the response (the next onSend hooks, then the write). What would have been thrown back into
 * the route's handler (a header value Node refuses, say) becomes the route's error response, as it would have there.
 */
function write(release: Release, payload: unknown, reply: FastifyReply): void {
  try {
    release(null, payload);
  } catch (error) {
    if (reply.raw.headersSent) reply.raw.destroy(error as Error);
    else reply.send(error);
  }
}
