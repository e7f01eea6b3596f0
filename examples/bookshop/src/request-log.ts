/**
 * The server's request log, made cheap (issue 35): one JSON line per request, and the lines of one turn of the event
 * loop written to stdout together.
 *
 * - `OneLineRequestLog`, given to Fastify as `logController`, writes one line when a request is done, where Fastify
 *   writes two ("incoming request", then "request completed"). The line carries what both carried: the request id
 *   (`reqId`), `req` (method, url, host, remoteAddress, remotePort), `res` (statusCode) and `responseTime` (ms, to the
 *   microsecond). "incoming request" is still written at `debug` (and `trace`), where seeing a request arrive is worth
 *   a second line; errors and 5xx are logged as before.
 * - `turnBufferedStdout()`, given to pino as its stream, gathers the lines written during one turn of the event loop
 *   and writes them in one `write(2)` at its end (`setImmediate`), where pino's default stdout writes each line on its
 *   own. A line is out within the turn it was logged in, and whatever is pending is written when the process exits.
 *
 * What each costs, measured: docs/performance.md, "The app as shipped".
 */
import { type FastifyReply, type FastifyRequest, LogController } from 'fastify';
import { pino } from 'pino';

/** Fastify's request logging in one line per request (see the file's comment). */
export class OneLineRequestLog extends LogController {
  override incomingRequest(request: FastifyRequest): void {
    // A no-op at `info` and above (pino's disabled levels are empty functions).
    if (!this.isLogDisabled(request)) request.log.debug({ req: request }, 'incoming request');
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (this.isLogDisabled(request)) return;
    const responseTime = Math.round(reply.elapsedTime * 1000) / 1000;
    if (error) reply.log.error({ req: request, res: reply, err: error, responseTime }, 'request errored');
    else reply.log.info({ req: request, res: reply, responseTime }, 'request completed');
  }
}

/** pino's destination for stdout, written once per turn of the event loop. */
class TurnBufferedStdout {
  // Synchronous: a turn's lines are out before the next turn starts (sonic-boom retries a full pipe, EAGAIN).
  private readonly out = pino.destination({ dest: 1, sync: true });
  private pending = '';
  private scheduled = false;
  private readonly flushTurn = (): void => {
    this.scheduled = false;
    this.flushSync();
  };

  constructor() {
    process.once('exit', () => this.flushSync());
  }

  write(line: string): void {
    this.pending += line;
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.flushTurn);
    }
  }

  flushSync(): void {
    if (this.pending === '') return;
    const chunk = this.pending;
    this.pending = '';
    this.out.write(chunk);
  }

  /** pino's `logger.flush(callback)`. */
  flush(callback?: (error?: Error) => void): void {
    this.flushSync();
    callback?.();
  }
}

let stdout: TurnBufferedStdout | undefined;

/** The process's one turn-buffered stdout (every logger of the process shares it, and its exit hook). */
export function turnBufferedStdout(): TurnBufferedStdout {
  stdout ??= new TurnBufferedStdout();
  return stdout;
}
