/**
 * `pnpm bench:dev-loop` (issue 36): how long a developer waits.
 *
 * - **A second `pnpm start`**: the root `start` script (an incremental `tsc -b` of the packages the app needs, then the
 *   app), run twice on an in-memory database; each is timed from the spawn of pnpm to the first `200` of
 *   `GET /api/books`. The first start compiles whatever changed since the last build; the second finds nothing to
 *   compile. Target: the second within 5 s.
 * - **A restart of `pnpm dev`**: the example app's `dev` script (tsx watching its sources). Once it answers, the
 *   title of the API in `src/app.ts` is changed; timed from that write to the first `GET /api/docs.jsonld` that
 *   carries the new title (the new process is up and has the change). Three edits; the file is put back at the end,
 *   also on Ctrl-C. Target: under 2 s.
 *
 * pnpm is run as this process was (`npm_execpath`), else through npx (`pnpmCommand`).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { freePort, pnpmCommand } from './processes.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const appFile = fileURLToPath(new URL('../../examples/bookshop/src/app.ts', import.meta.url));
const TITLE = "title: 'Bookshop API'";

function pnpm(args: string[], cwd: string, port: number): ChildProcess {
  const [command, prefix] = pnpmCommand();
  return spawn(command, [...prefix, ...args], {
    cwd,
    // Its own process group, so that stopping it stops pnpm's children (tsc, node, tsx) too.
    detached: true,
    stdio: 'ignore',
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: 'sqlite::memory:' },
  });
}

function stop(child: ChildProcess): void {
  try {
    if (child.pid) process.kill(-child.pid, 'SIGTERM');
  } catch {
    // Already gone.
  }
}

/** Polls `url` until `accept(body)` holds; the milliseconds since `since`. */
async function until(
  url: string,
  accept: (body: string) => boolean,
  since: number,
  limitMs = 120_000,
): Promise<number> {
  for (;;) {
    try {
      const response = await fetch(url);
      if (response.status === 200 && accept(await response.text())) return performance.now() - since;
    } catch {
      // Not listening yet.
    }
    if (performance.now() - since > limitMs) throw new Error(`${url} did not answer as expected in ${limitMs} ms.`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;
const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function timeStarts(): Promise<number[]> {
  const times: number[] = [];
  for (let run = 0; run < 2; run++) {
    const port = await freePort();
    const started = performance.now();
    const child = pnpm(['start'], root, port);
    try {
      times.push(await until(`http://127.0.0.1:${port}/api/books`, () => true, started));
    } finally {
      stop(child);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
  return times;
}

async function timeRestarts(edits: number): Promise<number[]> {
  const original = readFileSync(appFile, 'utf8');
  if (!original.includes(TITLE)) throw new Error(`${appFile} no longer holds ${TITLE}: update bench/src/dev-loop.ts.`);
  const restore = () => writeFileSync(appFile, original);
  process.once('SIGINT', () => {
    restore();
    process.exit(130);
  });
  const port = await freePort();
  const child = pnpm(['dev'], fileURLToPath(new URL('../../examples/bookshop/', import.meta.url)), port);
  const docs = `http://127.0.0.1:${port}/api/docs.jsonld`;
  const times: number[] = [];
  try {
    await until(docs, () => true, performance.now());
    for (let edit = 1; edit <= edits; edit++) {
      const title = `Bookshop API (edit ${edit})`;
      const written = performance.now();
      writeFileSync(appFile, original.replace(TITLE, `title: '${title}'`));
      times.push(await until(docs, (body) => body.includes(title), written, 30_000));
      // Let the watcher settle before the next edit.
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  } finally {
    restore();
    stop(child);
  }
  return times;
}

const starts = await timeStarts();
console.log(`pnpm start: first ${seconds(starts[0]!)}, second ${seconds(starts[1]!)} (target: the second within 5 s)`);
const restarts = await timeRestarts(3);
console.log(
  `pnpm dev: restarted with the change in ${restarts.map(seconds).join(', ')}; median ${seconds(median(restarts))} (target: under 2 s)`,
);
