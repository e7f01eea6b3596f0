/**
 * The app under test: the compiled bookshop (`dist/main.js`) as production runs it — `NODE_ENV=production`, the
 * migrations run first by `dist/migrations.js`, JSON logs — in a child process, on a fresh PostgreSQL schema of its
 * own (through the URL's `search_path`), so the soak's rows never mix with anyone else's. Its output goes to a log
 * file; its resident memory is sampled from /proc every second.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { openDatabase } from '@resource-api/core';

const bookshop = fileURLToPath(new URL('../..', import.meta.url));
const mainJs = join(bookshop, 'dist/main.js');
const migrationsJs = join(bookshop, 'dist/migrations.js');
export const varDirectory = join(bookshop, 'var');

/** A fresh schema; the URL whose connections work in it. */
export async function createSchema(databaseUrl: string): Promise<{ schema: string; url: string }> {
  const schema = `soak_${randomBytes(5).toString('hex')}`;
  const database = await openDatabase({ url: databaseUrl, schema });
  await database.close();
  const url = new URL(databaseUrl);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return { schema, url: url.href };
}

export async function dropSchema(databaseUrl: string, schema: string): Promise<void> {
  const database = await openDatabase({ url: databaseUrl });
  try {
    await database.knex.raw('DROP SCHEMA IF EXISTS ?? CASCADE', [schema]);
  } finally {
    await database.close();
  }
}

/** What a deployment runs before starting the server. */
export async function runMigrations(url: string): Promise<void> {
  await promisify(execFile)(process.execPath, [migrationsJs, 'run'], {
    env: { PATH: process.env.PATH ?? '', DATABASE_URL: url },
    timeout: 60_000,
  });
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

export interface RunningServer {
  readonly base: string;
  readonly pid: number;
  readonly logFile: string;
  /** Whether the process is still running. */
  alive(): boolean;
  /** Resident memory samples in MB, one a second: `[seconds since start, MB]`. */
  readonly rss: Array<readonly [number, number]>;
  /** The log lines at `error` level or above, and the lines that are not JSON (stack traces, driver warnings). */
  errorLines(): { errors: string[]; other: string[] };
  /** SIGTERM, then the exit code (null when it had to be killed after `timeout` ms). */
  stop(timeout: number): Promise<number | null>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function startServer(url: string, stamp: string): Promise<RunningServer> {
  mkdirSync(varDirectory, { recursive: true });
  const logFile = join(varDirectory, `soak-${stamp}.log`);
  const log = createWriteStream(logFile);
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [mainJs], {
    env: {
      PATH: process.env.PATH ?? '',
      NODE_ENV: 'production',
      HOST: '127.0.0.1',
      PORT: String(port),
      DATABASE_URL: url,
      JWT_SECRET: randomBytes(32).toString('hex'),
      LOG_LEVEL: 'warn',
      // The soak measures the database outage, not the rate limiter.
      RATE_LIMIT_MAX: '0',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let listening = false;
  let exitCode: number | null | undefined;
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  void exited.then((code) => (exitCode = code));
  for (const stream of [child.stdout!, child.stderr!]) {
    stream.on('data', (chunk: Buffer) => {
      log.write(chunk);
      if (chunk.toString().includes('Bookshop API listening')) listening = true;
    });
  }
  const deadline = Date.now() + 30_000;
  while (!listening) {
    if (exitCode !== undefined || Date.now() > deadline)
      throw new Error(`The bookshop did not start (see ${logFile}).`);
    await sleep(50);
  }

  const started = Date.now();
  const rss: Array<readonly [number, number]> = [];
  const sample = () => {
    try {
      const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1]);
      if (kb) rss.push([(Date.now() - started) / 1000, kb / 1024]);
    } catch {
      // The process is gone: the "alive" check reports it.
    }
  };
  sample();
  const sampler = setInterval(sample, 1000);

  return {
    base: `http://127.0.0.1:${port}`,
    pid: child.pid!,
    logFile,
    alive: () => exitCode === undefined,
    rss,
    errorLines() {
      const errors: string[] = [];
      const other: string[] = [];
      for (const line of readFileSync(logFile, 'utf8').split('\n')) {
        if (line.trim() === '' || line.startsWith('Bookshop API listening')) continue;
        if (!line.startsWith('{')) other.push(line);
        else if ((JSON.parse(line) as { level: number }).level >= 50) errors.push(line);
      }
      return { errors, other };
    },
    async stop(timeout) {
      clearInterval(sampler);
      if (exitCode !== undefined) return exitCode;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), timeout);
      const code = await exited;
      clearTimeout(timer);
      await new Promise((resolve) => log.end(resolve));
      return code;
    },
  };
}
