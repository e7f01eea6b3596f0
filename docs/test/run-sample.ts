/**
 * Runs one compiled sample with node, as the docs' convention says: it passes when it exits 0 by itself, or when it
 * keeps running and answers HTTP on the port given in `PORT` (a server sample) — then it is stopped with SIGTERM.
 */
import { spawn } from 'node:child_process';
import { get } from 'node:http';

export interface SampleRun {
  /** `exited 0`, `served` (answered HTTP on PORT, then stopped), or what went wrong. */
  readonly outcome: string;
  /** Everything the sample wrote to stdout and stderr. */
  readonly output: string;
}

/** How long a sample may take to exit or to answer on its port. */
const DEADLINE_MS = 30_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Whether anything answers HTTP on the port (any status counts). */
function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const request = get({ host: '127.0.0.1', port, path: '/', timeout: 1_000 }, (response) => {
      response.resume();
      resolve(true);
    });
    request.on('timeout', () => request.destroy());
    request.on('error', () => resolve(false));
  });
}

export async function runSample(script: string, cwd: string, port: number): Promise<SampleRun> {
  // Only what a shell would pass on, so a sample cannot lean on the test runner's environment.
  const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? cwd, PORT: String(port) };
  const child = spawn(process.execPath, ['--enable-source-maps', script], {
    cwd,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  let code: number | null | undefined;
  let signal: NodeJS.Signals | null = null;
  const closed = new Promise<void>((resolve) =>
    child.once('close', (exitCode, exitSignal) => {
      code = exitCode;
      signal = exitSignal;
      resolve();
    }),
  );
  const stop = async (): Promise<void> => {
    child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await closed;
    clearTimeout(killer);
  };

  const deadline = Date.now() + DEADLINE_MS;
  while (code === undefined) {
    if (await answers(port)) {
      await stop();
      return { outcome: 'served', output };
    }
    if (Date.now() > deadline) {
      await stop();
      return { outcome: `neither exited nor answered HTTP on PORT=${port} within ${DEADLINE_MS / 1000} s`, output };
    }
    await Promise.race([closed, sleep(100)]);
  }
  if (code === 0) return { outcome: 'exited 0', output };
  return { outcome: code === null ? `killed by ${signal}` : `exited ${code}`, output };
}
