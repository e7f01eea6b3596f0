/**
 * The servers under test, each a child process of its own on 127.0.0.1: started one at a time (so start-up times do
 * not compete for the CPU), timed from spawn to the first `200`, measured with `/proc/<pid>/status` (VmRSS) and
 * `/proc/<pid>/stat` (CPU time), stopped with SIGTERM (SIGKILL after 5 s).
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, isAbsolute } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Children still running when the runner exits (an error, process.exit) are killed, so none keeps a port or a CPU. */
const running = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

export interface ServerProcess {
  readonly name: string;
  readonly port: number;
  readonly pid: number;
  /** Spawn to the first `200` of the probe URL, in milliseconds. */
  readonly startupMs: number;
  /** VmRSS in MiB, one second after the first `200`. */
  readonly idleRssMiB: number;
  /** The highest VmRSS sampled while wrk was driving this server. */
  peakRssMiB: number;
  stop(): Promise<void>;
}

/** A port the kernel just gave out on 127.0.0.1, free at the moment it is returned. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/**
 * The Node.js flags of the example app's own start script (`examples/bookshop/package.json`, `"start": "node <flags>
 * dist/main.js"`): the app's targets run with exactly the flags `pnpm start` gives the app, read from that script so
 * the two cannot drift apart.
 */
export function appNodeFlags(): string[] {
  const manifest = JSON.parse(
    readFileSync(fileURLToPath(new URL('../../examples/bookshop/package.json', import.meta.url)), 'utf8'),
  ) as { scripts: { start: string } };
  const match = /^node((?:\s+--\S+)*)\s+dist\/main\.js$/.exec(manifest.scripts.start.trim());
  if (!match)
    throw new Error(`The bookshop's start script is not "node [flags] dist/main.js": ${manifest.scripts.start}`);
  return match[1]!
    .trim()
    .split(/\s+/)
    .filter((flag) => flag !== '');
}

/** VmRSS of a process in MiB (0 when it is gone). */
export function rssMiB(pid: number): number {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/** Clock ticks per second of the CPU times in `/proc` (USER_HZ, 100 on Linux), read once. */
const TICKS_PER_SECOND = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** The CPU time a process has used so far, user and system, all its threads, in seconds (NaN when it is gone). */
export function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command's name (field 2) may hold spaces and parentheses: the fields are counted from past its last `)`.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return Number.NaN;
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function status(url: string): Promise<number> {
  try {
    const response = await fetch(url, {
      headers: { accept: 'application/ld+json' },
      signal: AbortSignal.timeout(2000),
    });
    await response.arrayBuffer();
    return response.status;
  } catch {
    return 0;
  }
}

export async function startServer(options: {
  readonly name: string;
  /** A file of `dist/servers/`, such as `baseline.js`; or an absolute path (the example app's `dist/main.js`). */
  readonly script: string;
  readonly env: Record<string, string>;
  /**
   * The environment is `env` alone (with `PATH` and `NODE_ENV=production`), not the runner's own plus `env`: for the
   * example app as shipped, whose settings all come from the environment, so a variable of the shell that runs the
   * bench (`LOG_LEVEL`, `DATABASE_URL`, …) cannot change what is measured.
   */
  readonly isolatedEnv?: boolean;
  /** The variable that gives the server its port (default `BENCH_PORT`; the example app reads `PORT`). */
  readonly portVariable?: string;
  /** A GET path that answers 200 once the server is ready. */
  readonly probe: string;
  /** Where the server's stdout and stderr go: the file is the child's own (it writes there itself, in append mode). */
  readonly logFile: string;
  readonly timeoutMs?: number;
  /** Node.js flags before the script (the example app's: `appNodeFlags()`). */
  readonly nodeFlags?: readonly string[];
}): Promise<ServerProcess> {
  const port = await freePort();
  const script = isAbsolute(options.script)
    ? options.script
    : fileURLToPath(new URL(`./servers/${options.script}`, import.meta.url));
  // The child writes its output straight to the file (no pipe through the runner, which would spend CPU on every
  // line of a request log while wrk and the server share the host's cores).
  const log = openSync(options.logFile, 'a');
  const started = performance.now();
  const base = options.isolatedEnv ? { PATH: process.env.PATH ?? '' } : process.env;
  const child: ChildProcess = spawn(process.execPath, [...(options.nodeFlags ?? []), script], {
    env: { ...base, NODE_ENV: 'production', ...options.env, [options.portVariable ?? 'BENCH_PORT']: String(port) },
    // The bench's servers read the runner's end of stdin to notice it went away.
    stdio: ['pipe', log, log],
    // A script outside the bench (`<package>/dist/main.js`) runs from its package's folder, as `pnpm start` runs it.
    ...(isAbsolute(options.script) ? { cwd: dirname(dirname(script)) } : {}),
  });
  closeSync(log);
  running.add(child);
  let exited: number | null | undefined;
  child.on('exit', (code) => {
    exited = code;
    running.delete(child);
  });

  const url = `http://127.0.0.1:${port}${options.probe}`;
  const deadline = started + (options.timeoutMs ?? 60_000);
  for (;;) {
    if (exited !== undefined)
      throw new Error(`${options.name} exited with ${String(exited)} before answering; see ${options.logFile}`);
    if (performance.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${options.name} did not answer 200 on ${options.probe} in time; see ${options.logFile}`);
    }
    if ((await status(url)) === 200) break;
    await sleep(5);
  }
  const startupMs = performance.now() - started;
  await sleep(1000);
  const pid = child.pid ?? 0;
  const idleRssMiB = rssMiB(pid);

  return {
    name: options.name,
    port,
    pid,
    startupMs,
    idleRssMiB,
    peakRssMiB: idleRssMiB,
    async stop() {
      if (exited !== undefined) return;
      const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await gone;
      clearTimeout(timer);
    },
  };
}

/**
 * Runs `work` while sampling the RSS of a server every 200 ms (keeping its peak), and returns what `work` returned
 * with the CPU time the server used meanwhile.
 */
export async function whileSampling<T>(
  server: ServerProcess,
  work: () => Promise<T>,
): Promise<{ value: T; cpuSeconds: number }> {
  const timer = setInterval(() => {
    server.peakRssMiB = Math.max(server.peakRssMiB, rssMiB(server.pid));
  }, 200);
  const before = cpuSeconds(server.pid);
  try {
    const value = await work();
    return { value, cpuSeconds: cpuSeconds(server.pid) - before };
  } finally {
    clearInterval(timer);
    server.peakRssMiB = Math.max(server.peakRssMiB, rssMiB(server.pid));
  }
}

/**
 * How to run pnpm: as the bench itself was run (`pnpm bench…` sets `npm_execpath` to pnpm's script), else pnpm 10
 * through npx. The command, then the arguments that come before pnpm's own.
 */
export function pnpmCommand(): [string, string[]] {
  const execPath = process.env.npm_execpath;
  return execPath && /pnpm/.test(execPath) ? [process.execPath, [execPath]] : ['npx', ['--yes', 'pnpm@10']];
}
