/**
 * The servers under test, each a child process of its own on 127.0.0.1: started one at a time (so start-up times do
 * not compete for the CPU), timed from spawn to the first `200`, measured with `/proc/<pid>/status` (VmRSS), stopped
 * with SIGTERM (SIGKILL after 5 s).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

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
  const manifest = JSON.parse(readFileSync(fileURLToPath(new URL('../../examples/bookshop/package.json', import.meta.url)), 'utf8')) as { scripts: { start: string } };
  const match = /^node((?:\s+--\S+)*)\s+dist\/main\.js$/.exec(manifest.scripts.start.trim());
  if (!match) throw new Error(`The bookshop's start script is not "node [flags] dist/main.js": ${manifest.scripts.start}`);
  return match[1]!.trim().split(/\s+/).filter((flag) => flag !== '');
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

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function status(url: string): Promise<number> {
  try {
    const response = await fetch(url, { headers: { accept: 'application/ld+json' }, signal: AbortSignal.timeout(2000) });
    await response.arrayBuffer();
    return response.status;
  } catch {
    return 0;
  }
}

export async function startServer(options: {
  readonly name: string;
  /** A file of `dist/servers/`, such as `baseline.js`. */
  readonly script: string;
  readonly env: Record<string, string>;
  /** A GET path that answers 200 once the server is ready. */
  readonly probe: string;
  readonly logFile: string;
  readonly timeoutMs?: number;
  /** Node.js flags before the script (the example app's: `appNodeFlags()`). */
  readonly nodeFlags?: readonly string[];
}): Promise<ServerProcess> {
  const port = await freePort();
  const script = fileURLToPath(new URL(`./servers/${options.script}`, import.meta.url));
  const log = createWriteStream(options.logFile);
  const started = performance.now();
  const child: ChildProcess = spawn(process.execPath, [...(options.nodeFlags ?? []), script], {
    env: { ...process.env, NODE_ENV: 'production', ...options.env, BENCH_PORT: String(port) },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  child.stdout?.pipe(log);
  child.stderr?.pipe(log);
  let exited: number | null | undefined;
  child.on('exit', (code) => (exited = code));

  const url = `http://127.0.0.1:${port}${options.probe}`;
  const deadline = started + (options.timeoutMs ?? 60_000);
  for (;;) {
    if (exited !== undefined) throw new Error(`${options.name} exited with ${String(exited)} before answering; see ${options.logFile}`);
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

/** Samples the RSS of a server every 200 ms while `work` runs, and keeps its peak. */
export async function whileSampling<T>(server: ServerProcess, work: () => Promise<T>): Promise<T> {
  const timer = setInterval(() => {
    server.peakRssMiB = Math.max(server.peakRssMiB, rssMiB(server.pid));
  }, 200);
  try {
    return await work();
  } finally {
    clearInterval(timer);
    server.peakRssMiB = Math.max(server.peakRssMiB, rssMiB(server.pid));
  }
}
