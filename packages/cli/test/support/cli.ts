/**
 * The real `resource-api` binary for the tests: `ensureCliBuilt()` compiles the core, the CLI and the bookshop when
 * their dist/ is missing or older than their sources (under the lock file examples/bookshop/test/compiled.ts takes
 * too, so two test files never compile into the same dist/ at once), and `runCli()` runs `node packages/cli/dist/bin.js`
 * in a child process, as a person runs it, with its exit code, stdout and stderr.
 */
import { execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { isProjectBuilt, underBuildLock } from '../../../../examples/bookshop/test/compiled.js';

export const root = fileURLToPath(new URL('../../../..', import.meta.url));
export const binJs = join(root, 'packages/cli/dist/bin.js');
export const bookshopDir = join(root, 'examples/bookshop');
export const bookshopConfig = join(bookshopDir, 'resource-api.config.js');

/** What the tests run, and the project (its `tsconfig.build.json`, its `src/`) it is compiled from. */
const BUILDS = [
  { outputs: ['packages/core/dist/index.js'], project: 'packages/core' },
  { outputs: ['packages/cli/dist/bin.js', 'packages/cli/dist/main.js'], project: 'packages/cli' },
  {
    outputs: [
      'examples/bookshop/dist/resources/index.js',
      'examples/bookshop/dist/config.js',
      'examples/bookshop/dist/migrations.js',
    ],
    project: 'examples/bookshop',
  },
];

function buildIsCurrent(): boolean {
  return BUILDS.every(({ outputs, project }) => isProjectBuilt(project, outputs));
}

/** The three packages (core, then the CLI and the bookshop); where pnpm is not on the PATH, the workspace's tsc. */
async function build(): Promise<void> {
  const run = promisify(execFile);
  try {
    await run(
      'pnpm',
      ['--filter', '@resource-api/core', '--filter', '@resource-api/cli', '--filter', 'bookshop', 'build'],
      { cwd: root, timeout: 150_000 },
    );
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    const tsc = join(root, 'node_modules/typescript/bin/tsc');
    for (const project of ['packages/core', 'packages/cli', 'examples/bookshop']) {
      await run(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: join(root, project), timeout: 150_000 });
    }
  }
}

/** Compiles the core, the CLI and the bookshop when stale, under the build lock of the example app's tests. */
export const ensureCliBuilt = (): Promise<void> => underBuildLock(buildIsCurrent, build, 200_000);

export interface CliRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** `resource-api <args>` in `cwd` (default: the bookshop's folder), with `env` over a PATH-only environment, `input` on stdin. */
export function runCli(
  args: readonly string[],
  options: { cwd?: string; env?: Record<string, string>; input?: string } = {},
): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [binJs, ...args], {
      cwd: options.cwd ?? bookshopDir,
      env: { PATH: process.env.PATH ?? '', ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(options.input ?? '');
  });
}

/** A temporary ES module project whose modules can import '@resource-api/core' (a node_modules link to the workspace package). */
export function projectFolder(prefix: string): string {
  const folder = mkdtempSync(join(tmpdir(), prefix));
  writeFileSync(join(folder, 'package.json'), '{ "type": "module", "private": true }\n');
  mkdirSync(join(folder, 'node_modules/@resource-api'), { recursive: true });
  symlinkSync(join(root, 'packages/core'), join(folder, 'node_modules/@resource-api/core'), 'dir');
  return folder;
}
