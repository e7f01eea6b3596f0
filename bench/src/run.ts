/**
 * `pnpm bench` (from the repository root): generates the data set, starts the example app, the hand-written
 * baseline and the floor (each in a child process on 127.0.0.1), checks every target's answers, drives them with wrk
 * in alternating order for a few rounds, and prints req/s, p50, p99, errors and ratios to the baseline, start-up
 * times, RSS and SQL statements per request. Results are also written to `bench/var/results/`.
 *
 *   --large             1,000,000 books instead of 10,000 (1,000 authors either way)
 *   --duration <s>      seconds per measurement (default 5), after a warm-up of --warmup <s> (default 1)
 *   --rounds <n>        rounds over every workload and target (default 2); figures are medians over rounds
 *   --connections <n>   wrk connections (default 32), --threads <n> wrk threads (default 1)
 *   --startups <n>      starts of each server to time (default 3; the median is reported, the last one is measured)
 *   --only W1,W3        some workloads only
 *   --no-shipped        leave out the example app as shipped (`bookshop-shipped`: its dist/main.js, request log on;
 *                       `bookshop-shipped-cache`, the same with HTTP_CACHE=memory)
 *   --shipped-env K=V   a setting of the app as shipped, over the bench's (repeatable; `K=` unsets it), such as
 *                       LOG_LEVEL=warn or CORS_ORIGIN=https://admin.example.com
 *   --no-pg             skip W7; --pg <url> the PostgreSQL database (default $BENCH_POSTGRES_URL or
 *                       postgres://postgres@127.0.0.1:5432/test), used in a schema of its own, dropped at the end
 *   --no-mariadb        skip W7-mariadb; --mariadb <url> the MariaDB (or MySQL) server (default $BENCH_MARIADB_URL or
 *                       mysql://root@127.0.0.1:3306/test), used in a database of its own, dropped at the end
 */
import {
  closeSync,
  copyFileSync,
  mkdirSync,
  openSync,
  readdirSync,
  readSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import knexFactory from 'knex';
import pg from 'pg';
import { type DataTarget, generateData, JWT_SECRET, knexFor, loadData } from './data.js';
import { mariadbConnection } from './mariadb-connection.js';
import { generateMigration, runMigrations } from '@resource-api/core';
import { embedResources } from './embed-app.js';
import { type DelayFigures, startSampler } from './mercure-delay.js';
import { type IdleSubscribersRss, measureIdleSubscribers } from './mercure-idle.js';
import { booksTopic, type Subscriber, subscribeMany } from './mercure-subscribers.js';
import { appNodeFlags, type ServerProcess, startServer, whileSampling } from './processes.js';
import { type Measurement, type Report, renderReport } from './report.js';
import { countStatements } from './sql-count.js';
import { CACHE_TARGETS, SHIPPED_TARGETS, type TargetName, type Workload, buildWorkloads } from './workloads.js';
import { runWrk, wrkVersion } from './wrk.js';

const { values: args } = parseArgs({
  options: {
    large: { type: 'boolean', default: false },
    duration: { type: 'string', default: '5' },
    warmup: { type: 'string', default: '1' },
    rounds: { type: 'string', default: '2' },
    connections: { type: 'string', default: '32' },
    threads: { type: 'string', default: '1' },
    only: { type: 'string' },
    'no-pg': { type: 'boolean', default: false },
    'no-shipped': { type: 'boolean', default: false },
    'shipped-env': { type: 'string', multiple: true, default: [] },
    startups: { type: 'string', default: '3' },
    pg: { type: 'string', default: process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test' },
    'no-mariadb': { type: 'boolean', default: false },
    mariadb: { type: 'string', default: process.env.BENCH_MARIADB_URL ?? 'mysql://root@127.0.0.1:3306/test' },
  },
});

const SEED = 20240509;
const AUTHORS = 1000;
const BOOKS = args.large ? 1_000_000 : 10_000;
const seconds = Number(args.duration);
const warmup = Number(args.warmup);
const rounds = Number(args.rounds);
const connections = Number(args.connections);
const threads = Number(args.threads);
const startups = Math.max(1, Number(args.startups));
const log = (line: string) => console.log(line);

const wrk = wrkVersion();
if (!wrk) {
  console.error('wrk is not installed. On Debian or Ubuntu: sudo apt-get install -y wrk (then run pnpm bench again).');
  process.exit(1);
}

const varDir = fileURLToPath(new URL('../var/', import.meta.url));
/** The example app's entry point, the file its `start` script runs. */
const SHIPPED_MAIN = fileURLToPath(new URL('../../examples/bookshop/dist/main.js', import.meta.url));

/**
 * The environment of the example app as shipped (`bookshop-shipped`): the defaults that
 * `examples/bookshop/src/config.ts` gives every setting, except where the bench must say otherwise. `LOG_LEVEL` is not
 * set: the request log runs at its default level, `info`. Rate limiting stays on, as by default (300 requests a minute
 * per client), with a ceiling that wrk, every request from one address, cannot reach: each request is still counted and
 * answered with its `X-RateLimit-*` headers. Security headers, health routes and request ids are on by default; CORS is
 * off by default (`--shipped-env CORS_ORIGIN=https://admin.example.com` turns it on). One process (`WEB_CONCURRENCY`
 * 1).
 */
function shippedEnv(database: string): Record<string, string> {
  const env: Record<string, string> = {
    HOST: '127.0.0.1',
    DATABASE_URL: database,
    JWT_SECRET,
    RATE_LIMIT_MAX: '1000000000',
  };
  for (const setting of args['shipped-env']) {
    const match = /^([A-Z_][A-Z0-9_]*)=(.*)$/.exec(setting);
    if (!match) throw new Error(`--shipped-env ${setting}: expected NAME=value`);
    const [, name, value] = match as unknown as [string, string, string];
    if (value === '') delete env[name];
    else env[name] = value;
  }
  return env;
}

/** A MariaDB URL naming another database of the same server (the path), its query kept. */
function urlWithDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${encodeURIComponent(database)}`;
  return parsed.toString();
}

/** New lines and bytes a server wrote to its log file since `offset`. */
function logGrowth(file: string, offset: number): { lines: number; bytes: number } {
  const size = statSync(file).size;
  const fd = openSync(file, 'r');
  const buffer = Buffer.allocUnsafe(1 << 20);
  let lines = 0;
  try {
    for (let position = offset; position < size; ) {
      const read = readSync(fd, buffer, 0, Math.min(buffer.length, size - position), position);
      if (read === 0) break;
      const chunk = buffer.subarray(0, read);
      for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
      position += read;
    }
  } finally {
    closeSync(fd);
  }
  return { lines, bytes: size - offset };
}
const runDir = `${varDir}run-${process.pid}/`;
mkdirSync(runDir, { recursive: true });
mkdirSync(`${varDir}results/`, { recursive: true });

const servers = new Map<TargetName, ServerProcess>();
const sqliteFiles = new Map<TargetName, string>();
let pgTarget: (DataTarget & { kind: 'postgres' }) | undefined;
let mariadbTarget: (DataTarget & { kind: 'mariadb' }) | undefined;

/**
 * Stops the servers, drops the PostgreSQL schema and the MariaDB database, deletes the database copies (and, after a
 * good run, the logs).
 */
async function cleanUp(success: boolean): Promise<void> {
  await Promise.all([...servers.values()].map((server) => server.stop().catch(() => {})));
  servers.clear();
  if (pgTarget) {
    const target = pgTarget;
    pgTarget = undefined;
    const knex = knexFactory({ client: 'pg', connection: target.url, pool: { min: 0, max: 1 } });
    await knex
      .raw('DROP SCHEMA IF EXISTS ?? CASCADE', [target.schema])
      .catch((error: unknown) => console.error(`Could not drop schema ${target.schema}:`, error));
    await knex.destroy();
  }
  if (mariadbTarget) {
    const target = mariadbTarget;
    mariadbTarget = undefined;
    const knex = knexFactory({ client: 'mysql2', connection: mariadbConnection(target.url), pool: { min: 0, max: 1 } });
    await knex
      .raw('DROP DATABASE IF EXISTS ??', [target.schema])
      .catch((error: unknown) => console.error(`Could not drop database ${target.schema}:`, error));
    await knex.destroy();
  }
  if (success) rmSync(runDir, { recursive: true, force: true });
  else
    for (const file of readdirSync(runDir))
      if (/\.db(-wal|-shm|-journal)?$/.test(file)) rmSync(`${runDir}${file}`, { force: true });
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    console.error(`\n${signal}: stopping the servers and dropping the PostgreSQL schema and the MariaDB database.`);
    cleanUp(false).finally(() => process.exit(130));
  });
}

const MAX_SECONDS = 60;

/** Waits until the server answers a cheap request quickly twice in a row: the work wrk left behind is done. */
async function drain(server: ServerProcess, probe: string): Promise<void> {
  const deadline = performance.now() + 120_000;
  let quick = 0;
  while (quick < 2 && performance.now() < deadline) {
    const started = performance.now();
    const response = await fetch(`http://127.0.0.1:${server.port}${probe}`, { signal: AbortSignal.timeout(120_000) });
    await response.arrayBuffer();
    quick = performance.now() - started < 50 ? quick + 1 : 0;
  }
}

/** Starts a server `--startups` times, keeps the last one, and reports the median start-up time and idle RSS. */
async function startTimed(options: Parameters<typeof startServer>[0]): Promise<ServerProcess> {
  const samples: ServerProcess[] = [];
  for (;;) {
    const server = await startServer(options);
    samples.push(server);
    if (samples.length >= startups) {
      const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
      return {
        ...server,
        startupMs: median(samples.map((s) => s.startupMs)),
        idleRssMiB: median(samples.map((s) => s.idleRssMiB)),
        peakRssMiB: server.idleRssMiB,
      };
    }
    await server.stop();
  }
}

async function postgresAnswers(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

async function mariadbAnswers(url: string): Promise<boolean> {
  const knex = knexFactory({
    client: 'mysql2',
    connection: { ...mariadbConnection(url), connectTimeout: 3000 },
    pool: { min: 0, max: 1 },
  });
  try {
    await knex.raw('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await knex.destroy();
  }
}

async function fetchResponse(
  server: ServerProcess,
  request: {
    readonly method: 'GET' | 'POST' | 'DELETE';
    readonly path: string;
    readonly body?: string;
    readonly contentType?: string;
  },
): Promise<{ status: number; body: string; contentType: string; xCache: string | null }> {
  const response = await fetch(`http://127.0.0.1:${server.port}${request.path}`, {
    method: request.method,
    headers: { accept: 'application/ld+json', ...(request.contentType ? { 'content-type': request.contentType } : {}) },
    ...(request.body ? { body: request.body } : {}),
    signal: AbortSignal.timeout(60_000),
  });
  return {
    status: response.status,
    body: await response.text(),
    contentType: response.headers.get('content-type') ?? '',
    xCache: response.headers.get('x-cache'),
  };
}

/**
 * The checks of a cached target (issue 39), beside the workload's own. Reads: the request once more, which must come
 * from the cache (`X-Cache: HIT`) with the very body of the first answer and pass the same check. Writes: page 3
 * (with its total) is read into the cache, the write is made, and the page read again must be rendered anew with the
 * new book counted; the book is then deleted through the API and the page must count it no more. Returns problems.
 */
async function checkCache(
  workload: Workload,
  server: ServerProcess,
  first: { status: number; body: string },
): Promise<string[]> {
  const problems: string[] = [];
  if (workload.cache === 'reads') {
    const again = await fetchResponse(server, workload.request('bookshop-cache'));
    if (again.xCache !== 'HIT') problems.push(`asked again: expected X-Cache HIT, got ${String(again.xCache)}`);
    if (again.body !== first.body)
      problems.push(`asked again: the cached body differs from the first, ${firstDifference(again.body, first.body)}`);
    problems.push(...workload.check(again.status, again.body).map((p) => `from the cache: ${p}`));
    return problems;
  }
  if (workload.cache !== 'writes') return problems;
  const page = { method: 'GET', path: '/api/books?page=3' } as const;
  const totalOf = (body: string) =>
    (JSON.parse(body) as { 'hydra:totalItems'?: number })['hydra:totalItems'] ?? Number.NaN;
  await fetchResponse(server, page);
  const before = await fetchResponse(server, page);
  if (before.xCache !== 'HIT') problems.push(`page 3 asked twice: expected X-Cache HIT, got ${String(before.xCache)}`);
  const written = await fetchResponse(server, workload.request('bookshop-cache'));
  const id = (JSON.parse(written.body) as { id?: number }).id;
  const after = await fetchResponse(server, page);
  if (after.xCache === 'HIT') problems.push('page 3 after the write: answered from the cache (X-Cache HIT)');
  if (totalOf(after.body) !== totalOf(before.body) + 1)
    problems.push(
      `page 3 after the write: total ${String(totalOf(after.body))}, expected ${String(totalOf(before.body) + 1)}`,
    );
  const deleted = await fetchResponse(server, { method: 'DELETE', path: `/api/books/${String(id)}` });
  if (deleted.status !== 204) problems.push(`DELETE /api/books/${String(id)}: status ${deleted.status}`);
  const last = await fetchResponse(server, page);
  if (last.xCache === 'HIT') problems.push('page 3 after the delete: answered from the cache (X-Cache HIT)');
  if (totalOf(last.body) !== totalOf(before.body))
    problems.push(
      `page 3 after the delete: total ${String(totalOf(last.body))}, expected ${String(totalOf(before.body))}`,
    );
  return problems;
}

/**
 * Deletes the books a write workload added on a target, so every measurement reads the same data. Requests wrk had
 * in flight when it stopped may still be writing: it deletes until nothing new appears for half a second.
 */
async function undoWrites(target: TargetName): Promise<void> {
  const file = sqliteFiles.get(target);
  if (!file) return;
  const knex = knexFor({ kind: 'sqlite', file });
  try {
    for (let attempt = 0; attempt < 20; attempt++) {
      await knex('book').where('id', '>', BOOKS).delete();
      await new Promise((resolve) => setTimeout(resolve, 500));
      const [left] = await knex('book').where('id', '>', BOOKS).count({ n: '*' });
      if (Number(left?.n) === 0) {
        await purgeThroughApi(target);
        return;
      }
    }
    throw new Error(`${target} keeps writing books after the load stopped`);
  } finally {
    await knex.destroy();
  }
}

/**
 * The rows `undoWrites` deleted went around the app: on a target with the in-process cache, a write and a delete
 * through the API then purge what those rows may have shown (every collection page of books), so no cached page can
 * count them after.
 */
async function purgeThroughApi(target: TargetName): Promise<void> {
  const server = servers.get(target);
  if (!server || !CACHE_TARGETS.has(target)) return;
  const written = await fetchResponse(server, {
    method: 'POST',
    path: '/api/books',
    body: JSON.stringify({ title: 'A Book Written To Purge The Cache', author: '/api/authors/1' }),
    contentType: 'application/ld+json',
  });
  const id = (JSON.parse(written.body) as { id?: number }).id;
  const deleted = await fetchResponse(server, { method: 'DELETE', path: `/api/books/${String(id)}` });
  if (written.status !== 201 || deleted.status !== 204)
    throw new Error(
      `${target}: could not purge its cache through the API (POST ${written.status}, DELETE ${deleted.status})`,
    );
}

/** Checks a target's answer to a workload; throws when it is wrong, so a broken target cannot post a number. */
async function check(
  workload: Workload,
  target: TargetName,
): Promise<{ status: number; body: string; contentType: string; ms: number }> {
  const server = servers.get(target);
  if (!server) throw new Error(`${target} is not running`);
  const started = performance.now();
  const response = { ...(await fetchResponse(server, workload.request(target))), ms: 0 };
  response.ms = performance.now() - started;
  const problems = workload.check(response.status, response.body);
  if (workload.cache && CACHE_TARGETS.has(target)) problems.push(...(await checkCache(workload, server, response)));
  if (workload.writes) await undoWrites(target);
  if (problems.length > 0) {
    throw new Error(
      `${workload.id} on ${target}: the response is wrong, not measuring it.\n  ${problems.join('\n  ')}\n  body: ${response.body.slice(0, 400)}`,
    );
  }
  return response;
}

function firstDifference(a: string, b: string): string {
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  return `at character ${i}: …${JSON.stringify(a.slice(Math.max(0, i - 40), i + 60))} vs …${JSON.stringify(b.slice(Math.max(0, i - 40), i + 60))}`;
}

async function main(): Promise<void> {
  const startedAt = new Date();
  if (args['shipped-env'].length > 0)
    log(`The app as shipped runs with ${args['shipped-env'].join(' ')} over the bench's settings.`);
  log(
    `resource-api bench: ${AUTHORS} authors, ${BOOKS.toLocaleString('en')} books; ${wrk} -t${threads} -c${connections}, ${seconds} s per measurement after ${warmup} s of warm-up, ${rounds} rounds; ${cpus().length} CPUs, Node ${process.version}`,
  );

  const generating = Date.now();
  const data = generateData({ seed: SEED, authors: AUTHORS, books: BOOKS });
  log(`Generated the data set (seed ${SEED}) in ${Date.now() - generating} ms.`);
  let workloads = buildWorkloads(data);
  if (args.only) {
    const only = new Set(args.only.split(',').map((id) => id.trim().toUpperCase()));
    workloads = workloads.filter(
      (w) =>
        only.has(w.id.toUpperCase()) ||
        (only.has('W6') && w.id === 'W4') ||
        (only.has('W8-DEEP') && w.id === 'W8') ||
        (only.has('W2-INDEX') && w.id === 'W2') ||
        (only.has('W5-CACHED') && w.id === 'W5'),
    );
  }
  if (args['no-shipped'])
    workloads = workloads.map((w) => ({ ...w, targets: w.targets.filter((t) => !SHIPPED_TARGETS.has(t)) }));
  const usePg = !args['no-pg'] && workloads.some((w) => w.id === 'W7') && (await postgresAnswers(args.pg));
  if (!usePg) {
    if (workloads.some((w) => w.id === 'W7'))
      log(
        args['no-pg']
          ? 'W7 skipped (--no-pg).'
          : `W7 skipped: PostgreSQL does not answer at ${args.pg.replace(/\/\/[^@]*@/, '//')}.`,
      );
    workloads = workloads.filter((w) => w.id !== 'W7');
  }
  const useMariadb =
    !args['no-mariadb'] && workloads.some((w) => w.id === 'W7-mariadb') && (await mariadbAnswers(args.mariadb));
  if (!useMariadb) {
    if (workloads.some((w) => w.id === 'W7-mariadb'))
      log(
        args['no-mariadb']
          ? 'W7-mariadb skipped (--no-mariadb).'
          : `W7-mariadb skipped: MariaDB does not answer at ${args.mariadb.replace(/\/\/[^@]*@/, '//')}.`,
      );
    workloads = workloads.filter((w) => w.id !== 'W7-mariadb');
  }

  log('Loading the data (the example app creates the schema, then knex inserts the rows):');
  const dataFile = `${runDir}data.db`;
  await loadData({ kind: 'sqlite', file: dataFile }, data, log);
  if (usePg) {
    pgTarget = { kind: 'postgres', url: args.pg, schema: `bench_${process.pid}` };
    await loadData(pgTarget, data, log);
  }
  if (useMariadb) {
    mariadbTarget = { kind: 'mariadb', url: args.mariadb, schema: `bench_${process.pid}` };
    await loadData(mariadbTarget, data, log);
  }
  for (const target of [
    'bookshop',
    'bookshop-shipped',
    'bookshop-cache',
    'bookshop-shipped-cache',
    'bookshop-embed',
    'bookshop-cursor',
    'bookshop-trigram',
    'baseline',
    'baseline-wal',
    'bookshop-nohook',
    'bookshop-hook',
    'bookshop-hook-tx',
  ] as const) {
    const file = `${runDir}${target}.db`;
    copyFileSync(dataFile, file);
    sqliteFiles.set(target, file);
  }

  // The servers run with NODE_ENV=production, where the app does not change the schema: the trigram variant's index
  // (an FTS5 table filled from the 10,000 or 1,000,000 titles) is made here by a generated migration, as in production
  // (schema sync at start would too, but a million rows outlast Fastify's plugin timeout).
  const trigramStarted = performance.now();
  const migrations = {
    database: `sqlite:${sqliteFiles.get('bookshop-trigram')}`,
    directory: `${runDir}trigram-migrations`,
  };
  await generateMigration({
    ...migrations,
    resources: embedResources({ embed: false, substringIndex: true }),
    name: 'trigram',
  });
  await runMigrations(migrations);
  log(
    `Trigram index of the bookshop-trigram copy built in ${((performance.now() - trigramStarted) / 1000).toFixed(1)} s (a generated migration)`,
  );

  log('Counting SQL statements per request (in-process, knex query events):');
  copyFileSync(dataFile, `${runDir}count-bookshop.db`);
  copyFileSync(dataFile, `${runDir}count-embed.db`);
  const statements = await countStatements({
    bookshopFile: `${runDir}count-bookshop.db`,
    embedFile: `${runDir}count-embed.db`,
  });
  for (const s of statements) log(`  ${s.label}: ${s.statements}`);

  log(`Starting the servers, one at a time (${startups} times each, to time the start-up):`);
  const needed = new Set(
    workloads.flatMap((w) => [...w.targets, w.reference.target, ...Object.values(w.referenceTargets ?? {})]),
  );
  // The example app as shipped: its own entry point, its environment alone (see shippedEnv), on the port it reads.
  const shipped = { isolatedEnv: true, portVariable: 'PORT' } as const;
  const definitions: [TargetName, string, Record<string, string>, { isolatedEnv?: boolean; portVariable?: string }?][] =
    [
      ['bookshop', 'bookshop.js', { BENCH_DATABASE: `sqlite:${sqliteFiles.get('bookshop')}` }],
      ['bookshop-shipped', SHIPPED_MAIN, shippedEnv(`sqlite:${sqliteFiles.get('bookshop-shipped')}`), shipped],
      // Issue 39: the same two with the in-process HTTP cache on.
      [
        'bookshop-cache',
        'bookshop.js',
        { BENCH_DATABASE: `sqlite:${sqliteFiles.get('bookshop-cache')}`, BENCH_HTTP_CACHE: 'memory' },
      ],
      [
        'bookshop-shipped-cache',
        SHIPPED_MAIN,
        { ...shippedEnv(`sqlite:${sqliteFiles.get('bookshop-shipped-cache')}`), HTTP_CACHE: 'memory' },
        shipped,
      ],
      ['bookshop-embed', 'bookshop-embed.js', { BENCH_DATABASE: `sqlite:${sqliteFiles.get('bookshop-embed')}` }],
      ['bookshop-cursor', 'bookshop-cursor.js', { BENCH_DATABASE: `sqlite:${sqliteFiles.get('bookshop-cursor')}` }],
      ['bookshop-trigram', 'bookshop-trigram.js', { BENCH_DATABASE: `sqlite:${sqliteFiles.get('bookshop-trigram')}` }],
      [
        'bookshop-nohook',
        'bookshop-hook.js',
        { BENCH_DATABASE: `sqlite:${sqliteFiles.get('bookshop-nohook')}`, BENCH_HOOK: 'none' },
      ],
      [
        'bookshop-hook',
        'bookshop-hook.js',
        { BENCH_DATABASE: `sqlite:${sqliteFiles.get('bookshop-hook')}`, BENCH_HOOK: 'afterCommit' },
      ],
      [
        'bookshop-hook-tx',
        'bookshop-hook.js',
        { BENCH_DATABASE: `sqlite:${sqliteFiles.get('bookshop-hook-tx')}`, BENCH_HOOK: 'afterWrite' },
      ],
      ['baseline', 'baseline.js', { BENCH_DATABASE: `sqlite:${sqliteFiles.get('baseline')}` }],
      ['baseline-wal', 'baseline.js', { BENCH_DATABASE: `sqlite:${sqliteFiles.get('baseline-wal')}`, BENCH_WAL: '1' }],
      ...(pgTarget
        ? ([
            ['bookshop-pg', 'bookshop.js', { BENCH_DATABASE: pgTarget.url, BENCH_SCHEMA: pgTarget.schema }],
            ['baseline-pg', 'baseline.js', { BENCH_DATABASE: pgTarget.url, BENCH_SCHEMA: pgTarget.schema }],
            // The example app's settings name no schema: the connection's options set the search path instead.
            [
              'bookshop-shipped-pg',
              SHIPPED_MAIN,
              shippedEnv(
                `${pgTarget.url}${pgTarget.url.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${pgTarget.schema}`)}`,
              ),
              shipped,
            ],
          ] as typeof definitions)
        : []),
      ...(mariadbTarget
        ? ([
            [
              'bookshop-mariadb',
              'bookshop.js',
              { BENCH_DATABASE: mariadbTarget.url, BENCH_SCHEMA: mariadbTarget.schema },
            ],
            [
              'baseline-mariadb',
              'baseline.js',
              { BENCH_DATABASE: mariadbTarget.url, BENCH_SCHEMA: mariadbTarget.schema },
            ],
            // The example app's settings name no database apart from the URL: the URL's path names the bench's.
            [
              'bookshop-shipped-mariadb',
              SHIPPED_MAIN,
              shippedEnv(urlWithDatabase(mariadbTarget.url, mariadbTarget.schema)),
              shipped,
            ],
          ] as typeof definitions)
        : []),
    ];
  // The servers W5-mercure measures also get the idle-subscribers RSS measurement, right after they start.
  const withSubscribers = new Set(workloads.filter((w) => w.subscribers).flatMap((w) => w.targets));
  const idleSubscribers: IdleSubscribersRss[] = [];
  const appFlags = appNodeFlags();
  if (appFlags.length > 0)
    log(`The example app's targets run with its start script's Node.js flags: ${appFlags.join(' ')}`);
  for (const [name, script, env, options] of definitions) {
    if (!needed.has(name)) continue;
    // The example app's targets run with the Node.js flags of its start script; the hand-written references with none.
    const nodeFlags = name.startsWith('bookshop') ? appFlags : [];
    const server = await startTimed({
      name,
      script,
      env,
      ...options,
      nodeFlags,
      probe: '/api/books/1',
      logFile: `${runDir}${name}.log`,
    });
    servers.set(name, server);
    log(
      `  ${name}: pid ${server.pid}, port ${server.port}, first 200 after ${server.startupMs.toFixed(0)} ms, idle RSS ${server.idleRssMiB.toFixed(1)} MiB`,
    );
    if (withSubscribers.has(name)) {
      const idle = await measureIdleSubscribers(server);
      idleSubscribers.push(idle);
      log(
        `  ${name}: ${idle.subscribers} idle Mercure subscribers (opened in ${idle.connectMs.toFixed(0)} ms): RSS ${idle.beforeMiB.toFixed(1)} → ${idle.withMiB.toFixed(1)} MiB (+${(idle.withMiB - idle.beforeMiB).toFixed(1)})`,
      );
    }
  }

  log('Checking every target, and recording the bodies the floor will send:');
  const recorded: { method: string; route: string; url: string; status: number; contentType: string; body: string }[] =
    [];
  const bodyBytes = new Map<string, number>();
  for (const workload of workloads) {
    const responses = new Map<TargetName, { status: number; body: string; contentType: string }>();
    for (const target of workload.targets) {
      if (target === 'floor') continue;
      const response = await check(workload, target);
      responses.set(target, response);
      bodyBytes.set(`${workload.id} ${target}`, Buffer.byteLength(response.body));
      // W5-mercure's paired measurement without subscribers sends the same request.
      if (workload.pairedWithout)
        bodyBytes.set(`${workload.pairedWithout} ${target}`, Buffer.byteLength(response.body));
    }
    // A cached workload's bodies are compared with each other, and with those an earlier workload recorded for the
    // same request (W1's and W3's baseline).
    if (workload.cache) {
      const request = workload.request('floor');
      const earlier = recorded.find((r) => r.method === request.method && r.url === request.path);
      const normalize = (body: string) => (workload.writes ? body.replace(/\/api\/books\/\d+|"id":\d+/g, '#') : body);
      const bodies = [...responses.entries()].map(([t, r]) => [t, normalize(r.body)] as const);
      for (const [t, body] of bodies) {
        const other = earlier ? normalize(earlier.body) : bodies[0]?.[1];
        if (other !== undefined && body !== other)
          log(
            `  warning: ${workload.id}: ${t} sends another body than ${earlier ? 'the earlier workload' : bodies[0]?.[0]}, ${firstDifference(body, other)}`,
          );
      }
      // The floor keeps the bytes recorded for this request; a workload without the floor records none.
      if (!workload.targets.includes('floor') || earlier) {
        log(
          `  ${workload.id}: ${[...responses.keys()].map((t) => `${t} ok (${bodyBytes.get(`${workload.id} ${t}`)} bytes)`).join(', ')}`,
        );
        continue;
      }
    }
    // The floor sends what the baseline sent; for GraphQL, which the baseline does not serve, what the app sent; for
    // a cached workload measured against the floor, what its first target sent.
    const source =
      workload.reference.workload === workload.id && workload.reference.target !== 'floor'
        ? workload.reference.target
        : (workload.targets[0] as TargetName);
    const sourceResponse = responses.get(source);
    if (!sourceResponse) throw new Error(`${workload.id}: no response of ${source} to give the floor`);
    const request = workload.request('floor');
    recorded.push({
      method: request.method,
      route: workload.floorRoute,
      url: request.path,
      status: sourceResponse.status,
      contentType: sourceResponse.contentType,
      body: sourceResponse.body,
    });
    // Same workload, same bytes: the app and the baseline must send the same body (ids of new items aside).
    const baseline = workload.targets.find((t) => t.startsWith('baseline'));
    for (const app of baseline ? workload.targets.filter((t) => t.startsWith('bookshop')) : []) {
      const normalize = (body: string) => (workload.writes ? body.replace(/\/api\/books\/\d+|"id":\d+/g, '#') : body);
      const a = normalize(responses.get(app)?.body ?? '');
      const b = normalize(responses.get(baseline as TargetName)?.body ?? '');
      if (a !== b)
        log(
          `  warning: ${workload.id}: ${app} and ${baseline} send different bodies (${a.length} and ${b.length} bytes), ${firstDifference(a, b)}`,
        );
    }
    log(
      `  ${workload.id}: ${[...responses.keys()].map((t) => `${t} ok (${bodyBytes.get(`${workload.id} ${t}`)} bytes)`).join(', ')}`,
    );
  }
  const responsesFile = `${runDir}floor-responses.json`;
  writeFileSync(responsesFile, JSON.stringify(recorded));
  const floor = await startTimed({
    name: 'floor',
    script: 'floor.js',
    env: { BENCH_RESPONSES: responsesFile },
    probe: '/ready',
    logFile: `${runDir}floor.log`,
  });
  servers.set('floor', floor);
  log(
    `  floor: pid ${floor.pid}, port ${floor.port}, first 200 after ${floor.startupMs.toFixed(0)} ms, idle RSS ${floor.idleRssMiB.toFixed(1)} MiB`,
  );

  const measurements: Measurement[] = [];
  for (let round = 1; round <= rounds; round++) {
    log(`Round ${round} of ${rounds}:`);
    for (const workload of workloads) {
      const order = round % 2 === 1 ? workload.targets : [...workload.targets].reverse();
      let slowest = 0;
      for (const target of order) {
        const response = await check(workload, target);
        if (target === 'floor') bodyBytes.set(`${workload.id} floor`, Buffer.byteLength(response.body));
        slowest = Math.max(slowest, response.ms);
      }
      // With -c32 on a server that runs one query at a time, a request waits for the 31 before it: a measurement
      // must last a few times that, or slow targets complete nothing. Same duration for every target of a workload.
      const duration = Math.min(MAX_SECONDS, Math.max(seconds, Math.ceil((3 * connections * slowest) / 1000)));
      if (duration > seconds)
        log(
          `  ${workload.id}: one request takes up to ${slowest.toFixed(0)} ms alone; measuring ${duration} s per target`,
        );
      // W5-mercure: each server is measured twice in a row, without subscribers (recorded as its `pairedWithout`
      // workload, the reference of its ratio) and with them, the order alternating with the rounds, so that the two
      // sides of the ratio are measured as close in time as they can be on a host whose speed drifts.
      const passes: { readonly subscribed: boolean; readonly id: string }[] = workload.pairedWithout
        ? [
            { subscribed: false, id: workload.pairedWithout },
            { subscribed: true, id: workload.id },
          ]
        : [{ subscribed: true, id: workload.id }];
      if (round % 2 === 0) passes.reverse();
      for (const target of order)
        for (const pass of passes) {
          const server = servers.get(target) as ServerProcess;
          const request = workload.request(target);
          // W5-mercure: the subscribers are connected through the warm-up and the measurement, and closed after.
          const subscribers: Subscriber[] =
            workload.subscribers && pass.subscribed
              ? await subscribeMany(server.port, booksTopic(`http://127.0.0.1:${server.port}`), workload.subscribers)
              : [];
          let result: Awaited<ReturnType<typeof runWrk>>;
          let cpuSeconds: number;
          let mercure: DelayFigures | undefined;
          let written: { lines: number; bytes: number } | undefined;
          try {
            if (warmup > 0) await runWrk({ port: server.port, request, seconds: warmup, connections, threads });
            // wrk leaves the requests in flight when it stops; the server finishes them before it is measured.
            await drain(server, target === 'floor' ? '/ready' : '/api/books/1');
            if (workload.writes) await undoWrites(target);
            // The request log of the app as shipped: what it wrote during the measurement (and the drain after it).
            const logFile = SHIPPED_TARGETS.has(target) ? `${runDir}${target}.log` : undefined;
            const logOffset = logFile ? statSync(logFile).size : 0;
            const sampler = subscribers.length > 0 ? startSampler(server.port) : undefined;
            ({ value: result, cpuSeconds } = await whileSampling(server, () =>
              runWrk({ port: server.port, request, seconds: duration, connections, threads }),
            ));
            mercure = await sampler?.finish(subscribers);
            await drain(server, target === 'floor' ? '/ready' : '/api/books/1');
            written = logFile ? logGrowth(logFile, logOffset) : undefined;
            // A million requests log about 300 MB: the file is emptied once it is large (the child appends, so it goes
            // on).
            if (logFile && statSync(logFile).size > 64 * 1024 * 1024) truncateSync(logFile, 0);
          } finally {
            for (const subscriber of subscribers) subscriber.close();
          }
          if (workload.writes) await undoWrites(target);
          // The cache the load left: the items the rotation went over, read back (mostly from it) and checked.
          let afterLoad = '';
          if (workload.checkAfterLoad && CACHE_TARGETS.has(target)) {
            let hits = 0;
            for (const { path, check: checkOne } of workload.checkAfterLoad) {
              const response = await fetchResponse(server, { method: 'GET', path });
              if (response.xCache === 'HIT') hits++;
              const problems = checkOne(response.status, response.body);
              if (problems.length > 0)
                throw new Error(`${workload.id} on ${target}, after the load, GET ${path}: ${problems.join('; ')}`);
            }
            afterLoad = `  after the load ${workload.checkAfterLoad.length} items checked, ${hits} from the cache`;
          }
          const cpuUsPerRequest = result.requests > 0 ? (cpuSeconds * 1e6) / result.requests : Number.NaN;
          const logged =
            written && result.requests > 0
              ? {
                  logLinesPerRequest: written.lines / result.requests,
                  logBytesPerRequest: written.bytes / result.requests,
                }
              : undefined;
          measurements.push({
            round,
            workload: pass.id,
            target,
            ...result,
            cpuUsPerRequest,
            ...logged,
            ...(mercure ? { mercure } : {}),
          });
          const logNote = logged
            ? `  log ${logged.logLinesPerRequest.toFixed(2)} lines, ${logged.logBytesPerRequest.toFixed(0)} B/req`
            : '';
          const counts = result.headerCounts;
          const cacheNote =
            counts && CACHE_TARGETS.has(target)
              ? `  X-Cache HIT ${counts.hit} MISS ${counts.miss} none ${counts.none}: hit ratio ${((100 * counts.hit) / Math.max(1, counts.hit + counts.miss + counts.none)).toFixed(1)} %${afterLoad}`
              : '';
          const mercureNote = mercure
            ? `\n    ${mercure.subscribers} subscribers: events of ${mercure.samples} sampled writes ${mercure.received}/${mercure.expected}, delay p50 ${mercure.p50Ms.toFixed(1)} ms p95 ${mercure.p95Ms.toFixed(1)} ms max ${mercure.maxMs.toFixed(1)} ms, dropped ${mercure.dropped}, failed writes ${mercure.failedSamples}, bench CPU ${mercure.benchCores.toFixed(2)} cores`
            : '';
          log(
            `  ${pass.id} ${target.padEnd(19)} ${result.requestsPerSecond.toFixed(0).padStart(7)} req/s  p50 ${result.p50Ms.toFixed(2)} ms  p99 ${result.p99Ms.toFixed(2)} ms  CPU ${cpuUsPerRequest.toFixed(0)} µs/req  errors ${result.errors}${logNote}${cacheNote}${mercureNote}`,
          );
        }
    }
  }

  const report: Report = {
    date: startedAt.toISOString(),
    books: BOOKS,
    authors: AUTHORS,
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model ?? '',
    node: process.version,
    wrk: `${wrk} -t${threads} -c${connections}`,
    seconds,
    warmup,
    rounds,
    workloads: workloads.flatMap((w) => [
      // A paired measurement without subscribers comes first, as a workload of its own: its rows are W5-mercure's
      // reference.
      ...(w.pairedWithout
        ? [
            {
              id: w.pairedWithout,
              title: `${w.id}'s request on each of its servers, measured right before or after it without subscribers (its reference)`,
              targets: [...w.targets],
              reference: { workload: w.pairedWithout, target: w.targets[0] as TargetName },
              referenceOnSameTarget: true,
            },
          ]
        : []),
      {
        id: w.id,
        title: w.title,
        targets: [...w.targets],
        reference: w.reference,
        ...(w.referenceOnSameTarget ? { referenceOnSameTarget: true } : {}),
        ...(w.referenceTargets ? { referenceTargets: w.referenceTargets } : {}),
      },
    ]),
    measurements,
    bodyBytes: Object.fromEntries(bodyBytes),
    servers: [...servers.values()].map((s) => ({
      name: s.name,
      startupMs: s.startupMs,
      idleRssMiB: s.idleRssMiB,
      peakRssMiB: s.peakRssMiB,
    })),
    statements: statements.map(({ label, request, statements: n }) => ({ label, request, statements: n })),
    ...(idleSubscribers.length > 0 ? { idleSubscribers } : {}),
    ...([...servers.keys()].some((name) => SHIPPED_TARGETS.has(name))
      ? {
          shippedSettings: Object.fromEntries(
            Object.entries(shippedEnv('')).filter(([name]) => name !== 'DATABASE_URL' && name !== 'JWT_SECRET'),
          ),
        }
      : {}),
  };
  const markdown = renderReport(report);
  const stamp = startedAt.toISOString().replace(/[:.]/g, '-');
  const base = `${varDir}results/${stamp}-${BOOKS}`;
  writeFileSync(`${base}.json`, `${JSON.stringify({ ...report, statementsSql: statements }, null, 2)}\n`);
  writeFileSync(`${base}.md`, markdown);
  log(`\n${markdown}`);
  log(`Written to ${base}.md and .json`);
}

try {
  await main();
  await cleanUp(true);
} catch (error) {
  const message = error instanceof Error ? error.message : String(error);
  console.error(message.length > 3000 ? `${message.slice(0, 3000)}…` : message);
  await cleanUp(false);
  console.error(`Server logs are kept in ${runDir}`);
  process.exit(1);
}
