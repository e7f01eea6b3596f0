/**
 * The compiled bookshop (`examples/bookshop/dist/`), for the tests that start it as a person does, with node in a
 * child process. `ensureBuilt()` runs `pnpm -r build` when the build is missing or older than the sources; test files
 * run in parallel, so the build is taken under a lock file and checked again once the lock is held.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readdirSync, statSync, unlinkSync } from 'node:fs';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

export const root = fileURLToPath(new URL('../../..', import.meta.url));
export const mainJs = join(root, 'examples/bookshop/dist/main.js');
export const demoJs = join(root, 'examples/bookshop/dist/demo-data.js');

/**
 * The newest modification time of the .ts files under `dir` that the build compiles: not the tests beside the sources
 * (`*.test.ts`, which every build config excludes), whose edits no build follows.
 */
export function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(path));
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts'))
      newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

/**
 * Whether the project at `project` (its `tsconfig.build.json`) is built from its current sources: `outputs` exist and
 * its build info is newer than every source. The build info, not an output: `tsc -b` rewrites only the outputs whose
 * text changed, so an output may stay older than a source edited since, though the build is current.
 */
export function isProjectBuilt(project: string, outputs: readonly string[]): boolean {
  const buildInfo = join(root, project, 'dist/tsconfig.build.tsbuildinfo');
  if (!existsSync(buildInfo) || !outputs.every((output) => existsSync(join(root, output)))) return false;
  return statSync(buildInfo).mtimeMs >= newestSource(join(root, project, 'src'));
}

function buildIsCurrent(): boolean {
  return (
    isProjectBuilt('examples/bookshop', ['examples/bookshop/dist/main.js', 'examples/bookshop/dist/demo-data.js']) &&
    isProjectBuilt('packages/core', ['packages/core/dist/index.js'])
  );
}

/** `pnpm -r build`; where pnpm is not on the PATH, the same two compilations with the workspace's TypeScript. */
async function buildWorkspace(): Promise<void> {
  const run = promisify(execFile);
  try {
    await run('pnpm', ['-r', 'build'], { cwd: root, timeout: 120_000 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    const tsc = join(root, 'node_modules/typescript/bin/tsc');
    for (const project of ['packages/core', 'examples/bookshop']) {
      await run(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: join(root, project), timeout: 120_000 });
    }
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs `build` unless `isCurrent()`, under one lock file for the whole checkout: test files run in parallel (and the
 * CLI's and the docs' tests build too), so two compilations never write the same dist/ at once; the check is made
 * again once the lock is held.
 */
export async function underBuildLock(
  isCurrent: () => boolean,
  build: () => Promise<void>,
  waitMs = 150_000,
): Promise<void> {
  if (isCurrent()) return;
  const lock = join(tmpdir(), `bookshop-build-${Buffer.from(root).toString('base64url').slice(-24)}.lock`);
  const deadline = Date.now() + waitMs;
  for (;;) {
    try {
      closeSync(openSync(lock, 'wx'));
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      // A lock older than the longest build is left over from a killed run.
      if (Date.now() - (statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now()) > 150_000) unlinkSync(lock);
      if (Date.now() > deadline) throw new Error(`Waited too long for the build lock ${lock}.`);
      await sleep(250);
    }
  }
  try {
    if (!isCurrent()) await build();
    // A build that reported success yet left dist/ missing or stale (seen once in a fresh clone under load): once
    // more, then a clear error rather than a test failing on a module it cannot find.
    if (!isCurrent()) await build();
    if (!isCurrent()) throw new Error('The build finished, but dist/ is still missing or older than the sources.');
  } finally {
    unlinkSync(lock);
  }
}

/** Builds the workspace unless `dist/` is current; one test file at a time. */
export const ensureBuilt = (): Promise<void> => underBuildLock(buildIsCurrent, buildWorkspace);

/** A TCP port nobody listens on right now. */
export async function freePort(): Promise<number> {
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

export interface Started {
  readonly child: ChildProcess;
  /** Everything written to stdout and stderr so far. */
  output(): string;
  /** The exit code (null when killed by a signal), once the process exited and its output was read. */
  readonly exit: Promise<number | null>;
}

/** Starts `node <script>` from the repository root with exactly `env` (plus PATH), collecting its output. */
export function startNode(script: string, env: Record<string, string>): Started {
  const child = spawn(process.execPath, [script], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exit = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  return { child, output: () => output, exit };
}

/**
 * A `POST /api/authors` whose body is sent in two halves: once `arrived` resolves, the server holds the request, half
 * read (for shutdown tests: the signal arrives while it is in flight). The request asks `Expect: 100-continue`, so
 * the server's `100 Continue` says it has taken the request (Node answers it right before handing the request to
 * Fastify); the first half of the body follows. `finish` sends the rest and resolves with the answer.
 */
export function halfSentPost(port: string | number, requestId: string, name: string) {
  const body = JSON.stringify({ name });
  const inFlight = httpRequest({
    host: '127.0.0.1',
    port,
    method: 'POST',
    path: '/api/authors',
    headers: {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
      'x-request-id': requestId,
      expect: '100-continue',
    },
  });
  const answered = new Promise<{ response: IncomingMessage; text: string }>((resolve, reject) => {
    inFlight.on('response', (response) => {
      let text = '';
      response.on('data', (chunk: Buffer) => (text += chunk.toString()));
      response.on('end', () => resolve({ response, text }));
    });
    inFlight.on('error', reject);
  });
  const arrived = new Promise<void>((resolve, reject) => {
    inFlight.once('continue', () => inFlight.write(body.slice(0, 10), (error) => (error ? reject(error) : resolve())));
    inFlight.once('error', reject);
  });
  inFlight.flushHeaders();
  return {
    arrived,
    finish(): Promise<{ response: IncomingMessage; text: string }> {
      inFlight.end(body.slice(10));
      return answered;
    },
  };
}
