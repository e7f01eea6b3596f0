/**
 * The server's request log, made cheap (issue 35): one JSON line per request, and the lines of one turn of the event
 * loop written to stdout together.
 *
 * - `OneLineRequestLog`, given to Fastify as `logController`, writes one line when a request is done, where Fastify
 *   writes two ("incoming request", then "request completed"). The line carries what both carried: the request id
 *   (`reqId`), `req` (method, url, host, remoteAddress, remotePort), `res` (statusCode) and `responseTime` (ms, to the
 *   microsecond). "incoming request" is still written at `debug` (and `trace`), where seeing a request arrive is worth
 *   a second line; errors and 5xx are logged as before. The line of a request that went well is written as pino
 *   would write it (the same keys, in the same order), but built as one string: pino's generic serializer (each
 *   nested object walked, each string escaped by hand) was most of the line's cost. That line skips what this app's
 *   logger does not configure (formatters, mixins, redaction): one who adds them writes it with `reply.log` again.
 * - `turnBufferedStdout()`, given to pino as its stream, gathers the lines written during one turn of the event loop
 *   and writes them in one `write(2)` at its end (`setImmediate`), where pino's default stdout writes each line on its
 *   own. A line is out within the turn it was logged in, and whatever is pending is written when the process exits.
 *
 * What each costs, measured: docs/performance.md, "The app as shipped".
 */
import { hostname } from 'node:os';
import { type FastifyReply, type FastifyRequest, LogController } from 'fastify';
import { pino } from 'pino';

/** What pino puts first on every line of this process: `"pid":…,"hostname":…` (pino's default `base`). */
const BASE = `"pid":${process.pid},"hostname":${JSON.stringify(hostname())}`;

const INFO = pino.levels.values.info ?? 30;

/** Fastify's request logging in one line per request (see the file's comment). */
export class OneLineRequestLog extends LogController {
  /** `out`: the logger's own stream, where the line of a request that went well is written directly. */
  constructor(private readonly out: { write(line: string): void }) {
    super();
  }

  override incomingRequest(request: FastifyRequest): void {
    // A no-op at `info` and above (pino's disabled levels are empty functions).
    if (!this.isLogDisabled(request)) request.log.debug({ req: request }, 'incoming request');
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (this.isLogDisabled(request)) return;
    const micros = Math.round(reply.elapsedTime * 1000);
    if (error)
      reply.log.error({ req: request, res: reply, err: error, responseTime: micros / 1000 }, 'request errored');
    else if ((pino.levels.values[reply.log.level] ?? 0) <= INFO) this.out.write(completedLine(request, reply, micros));
  }
}

/**
 * The "request completed" line, byte for byte as pino writes it with Fastify's serializers (`req`: method, url,
 * version, host, remoteAddress, remotePort, each left out when undefined; `res`: statusCode). What the client sent goes
 * through JSON.stringify. The numbers are written from integers: formatting a fractional number (the response time)
 * or one past 2^31 (the time) is V8's slow path, most of what the line cost (docs/performance.md).
 */
function completedLine(request: FastifyRequest, reply: FastifyReply, responseMicros: number): string {
  const version = request.headers['accept-version'];
  const port = request.raw.socket?.remotePort;
  const { method } = request;
  const host = request.host;
  const ip = request.ip;
  return (
    `{"level":30,"time":${timeText.of(Date.now())},${BASE},"reqId":${JSON.stringify(request.id)},` +
    `"req":{"method":${METHODS.get(method) ?? JSON.stringify(method)},"url":${JSON.stringify(request.url)}` +
    (version === undefined ? '' : `,"version":${JSON.stringify(version)}`) +
    (host === undefined ? '' : `,"host":${hostJson.of(host)}`) +
    (ip === undefined ? '' : `,"remoteAddress":${addressJson.of(ip)}`) +
    (port === undefined ? '' : `,"remotePort":${port}`) +
    `},"res":{"statusCode":${reply.statusCode}},"responseTime":${millisecondsText(responseMicros)},` +
    `"msg":"request completed"}\n`
  );
}

/**
 * A value's text, kept for the next line while the value stays the same: the time within one millisecond, a server's
 * one host, a connection's one address.
 */
class LastText<T> {
  private last: T | undefined;
  private text = '';

  constructor(private readonly format: (value: T) => string) {}

  of(value: T): string {
    if (value !== this.last) {
      this.last = value;
      this.text = this.format(value);
    }
    return this.text;
  }
}

const timeText = new LastText<number>(String);
const hostJson = new LastText<string>(JSON.stringify);
const addressJson = new LastText<string>(JSON.stringify);

/** The common methods' JSON, made once (a Map: no method name can reach an object's prototype). */
const METHODS: ReadonlyMap<string, string> = new Map(
  ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'].map((method) => [method, JSON.stringify(method)]),
);

/**
 * A whole number of microseconds as milliseconds, the text JSON gives `micros / 1000` (the shortest decimal that reads
 * back as that number: at most three decimals, no trailing zero), from the integer's parts.
 */
export function formatMilliseconds(micros: number): string {
  const whole = Math.floor(micros / 1000);
  const fraction = micros - whole * 1000;
  if (fraction === 0) return String(whole);
  if (fraction % 100 === 0) return `${whole}.${fraction / 100}`;
  if (fraction % 10 === 0) return `${whole}.${fraction < 100 ? '0' : ''}${fraction / 10}`;
  return `${whole}.${fraction < 10 ? '00' : fraction < 100 ? '0' : ''}${fraction}`;
}

/** The response time's text; a time outside what the integer parts cover (never measured) goes through JSON. */
const millisecondsText = (micros: number): string =>
  Number.isSafeInteger(micros) && micros >= 0 ? formatMilliseconds(micros) : JSON.stringify(micros / 1000);

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
