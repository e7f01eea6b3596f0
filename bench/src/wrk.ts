/** Runs wrk (Debian's `wrk` package) against one URL and reads the line its Lua script prints at the end. */
import { execFileSync, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const SCRIPT = fileURLToPath(new URL('../wrk/report.lua', import.meta.url));

export interface WrkRequest {
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly body?: string;
  readonly contentType?: string;
  /** `/api/books/` and the highest id: each request asks another id. */
  readonly rotate?: { readonly prefix: string; readonly max: number };
  /**
   * A response header to count the values of (lower case: `x-cache`): HIT, MISS, or none. wrk then hands every
   * response to its Lua script, which costs it CPU per response: a workload counts on all its targets or on none.
   */
  readonly countHeader?: string;
}

/** The values of the counted header over the measured requests (`x-cache`: HIT, MISS, absent or another). */
export interface HeaderCounts {
  readonly hit: number;
  readonly miss: number;
  readonly none: number;
}

export interface WrkResult {
  readonly requests: number;
  readonly seconds: number;
  readonly requestsPerSecond: number;
  /** Connect, read, write and timeout errors, and responses that were not 2xx or 3xx. */
  readonly errors: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** With `countHeader`: its values over the responses wrk read (those of the measured seconds). */
  readonly headerCounts?: HeaderCounts;
}

/** The version line of wrk, or undefined when it is not installed. */
export function wrkVersion(): string | undefined {
  try {
    // `wrk -v` prints its version and exits with 1.
    execFileSync('wrk', ['-v'], { stdio: 'pipe' });
  } catch (error) {
    const { stdout, code } = error as { stdout?: Buffer; code?: string };
    if (code === 'ENOENT') return undefined;
    // "wrk debian/4.1.0-3+b2 [epoll] Copyright (C) 2012 Will Glozer" → "wrk debian/4.1.0-3+b2"
    return (
      stdout
        ?.toString()
        .split('\n')[0]
        ?.replace(/\s*\[.*$/, '')
        .trim() || 'wrk'
    );
  }
  return 'wrk';
}

export function runWrk(options: {
  readonly port: number;
  readonly request: WrkRequest;
  readonly seconds: number;
  readonly connections: number;
  readonly threads: number;
}): Promise<WrkResult> {
  const { request } = options;
  const url = `http://127.0.0.1:${options.port}${request.path}`;
  const args = [
    '-t',
    String(options.threads),
    '-c',
    String(options.connections),
    '-d',
    `${options.seconds}s`,
    '--timeout',
    '30s',
    '-s',
    SCRIPT,
    url,
  ];
  const env = {
    ...process.env,
    BENCH_METHOD: request.method,
    BENCH_BODY: request.body ?? '',
    BENCH_CONTENT_TYPE: request.contentType ?? '',
    BENCH_ROTATE_PREFIX: request.rotate?.prefix ?? '',
    BENCH_ROTATE_MAX: String(request.rotate?.max ?? 0),
    BENCH_COUNT_HEADER: request.countHeader ?? '',
  };
  return new Promise((resolve, reject) => {
    const child = spawn('wrk', args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      const line = out.split('\n').find((l) => l.startsWith('BENCH_RESULT '));
      if (code !== 0 || !line) return reject(new Error(`wrk ${args.join(' ')} failed (exit ${String(code)}):\n${out}`));
      const r = JSON.parse(line.slice('BENCH_RESULT '.length)) as Record<string, number>;
      const countsLine = out.split('\n').find((l) => l.startsWith('BENCH_HEADER_COUNTS '));
      const headerCounts = countsLine
        ? (JSON.parse(countsLine.slice('BENCH_HEADER_COUNTS '.length)) as HeaderCounts)
        : undefined;
      const seconds = (r.duration_us ?? 0) / 1e6;
      const requests = r.requests ?? 0;
      resolve({
        requests,
        seconds,
        requestsPerSecond: seconds > 0 ? requests / seconds : 0,
        errors: (r.connect ?? 0) + (r.read ?? 0) + (r.write ?? 0) + (r.status ?? 0) + (r.timeout ?? 0),
        p50Ms: (r.p50_us ?? 0) / 1000,
        p99Ms: (r.p99_us ?? 0) / 1000,
        ...(headerCounts ? { headerCounts } : {}),
      });
    });
  });
}
