/**
 * Every core of a machine: the compiled server with `WEB_CONCURRENCY=2` runs as a cluster primary with two worker
 * processes on one port and one SQLite file (WAL). Both workers serve (each JSON log line carries its process id),
 * what one writes the other reads, a worker that dies is replaced, and SIGTERM to the primary shuts every worker
 * down gracefully (a request in flight still completes) before the primary exits 0. A worker that cannot start stops
 * the whole server with exit code 1 rather than restarting in a loop; settings a cluster cannot work with are refused.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';
import { ensureBuilt, freePort, halfSentPost, mainJs, root, type Started, startNode } from './compiled.js';
import { TEST_JWT_SECRET } from './support.js';

const execFileAsync = promisify(execFile);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits (up to 30 s) until `condition` holds; fails with the server's output otherwise. */
async function until(condition: () => boolean, what: string, server: Started): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`Waited 30 s for ${what}. Output:\n${server.output()}`);
    await sleep(50);
  }
}

interface LogLine {
  readonly pid: number;
  readonly msg: string;
  readonly reqId?: string;
  readonly [key: string]: unknown;
}

const logLines = (server: Started): LogLine[] =>
  server
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as LogLine);

/** The worker pids the primary reported listening, in order. */
const listeningWorkers = (server: Started): number[] =>
  logLines(server)
    .filter((l) => l.msg === 'worker listening')
    .map((l) => l.worker as number);

/** The pid of the process that completed the request `reqId`. */
const servedBy = (server: Started, reqId: string): number | undefined =>
  logLines(server).find((l) => l.reqId === reqId && l.msg === 'request completed')?.pid;

/** Whether a process is still there (signal 0 only checks). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * One request on a connection of its own (no keep-alive): the primary hands each new connection to the next worker,
 * so consecutive requests go to both. The status and the parsed body.
 */
async function send(
  port: number,
  method: string,
  path: string,
  requestId: string,
  body?: unknown,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`http://127.0.0.1:${port}${path}`, {
    method,
    headers: {
      'x-request-id': requestId,
      connection: 'close',
      accept: 'application/ld+json',
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe('the compiled server with WEB_CONCURRENCY=2', () => {
  const dir = mkdtempSync(join(tmpdir(), 'bookshop-cluster-'));
  const env = {
    HOST: '127.0.0.1',
    DATABASE_URL: `sqlite:${join(dir, 'shop.db')}`,
    JWT_SECRET: TEST_JWT_SECRET,
    ADMIN_EMAIL: 'cluster-admin@example.com',
    ADMIN_PASSWORD: 'cluster-admin-password',
    LOG_LEVEL: 'info',
    WEB_CONCURRENCY: '2',
  };
  let server: Started;
  let port = 0;

  beforeAll(async () => {
    await ensureBuilt();
    port = await freePort();
    server = startNode(mainJs, { ...env, PORT: String(port) });
    // The primary logs "worker listening" when a worker's port is up; the worker prints its own line just after: both.
    const bothListening = () =>
      listeningWorkers(server).length === 2 &&
      listeningWorkers(server).every((pid) => server.output().includes(`worker process ${pid})`));
    await until(() => bothListening() || server.child.exitCode !== null, 'two workers to listen', server);
    expect(server.child.exitCode, server.output()).toBeNull();
  }, 150_000);

  afterAll(() => {
    if (server && server.child.exitCode === null) server.child.kill('SIGKILL');
    for (const pid of listeningWorkers(server)) if (alive(pid)) process.kill(pid, 'SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('starts two worker processes besides the primary, one after the other', () => {
    const [first, second] = listeningWorkers(server);
    expect(new Set([first, second, server.child.pid]).size).toBe(3);
    const lines = logLines(server);
    // Rate limiting is on (RATE_LIMIT_MAX defaults to 300) without REDIS_URL: each worker counts alone, and it says so.
    expect(lines[0]).toMatchObject({
      pid: server.child.pid,
      level: 40,
      msg: 'rate limits are counted by each worker on its own: set REDIS_URL to share one count',
    });
    // On SQLite without MERCURE_REDIS_URL the workers' hubs cannot share their updates, and it says so too.
    expect(lines[1]).toMatchObject({
      pid: server.child.pid,
      level: 40,
      msg: 'real-time updates reach the subscribers of the worker that wrote them only: set MERCURE_REDIS_URL to share them',
    });
    expect(lines[2]).toMatchObject({ pid: server.child.pid, workers: 2, msg: 'starting the workers' });
    // Each worker prints its own listening line; the second only started once the first listened.
    expect(server.output()).toContain(`worker process ${first})`);
    expect(server.output()).toContain(`worker process ${second})`);
    const firstListening = lines.findIndex((l) => l.msg === 'worker listening' && l.worker === first);
    const secondStarting = lines.findIndex((l) => l.pid === second);
    expect(secondStarting).toBeGreaterThan(firstListening);
  });

  it('serves from both workers, and each reads what the other wrote', async () => {
    const workers = listeningWorkers(server);
    const created: { iri: string; by: string }[] = [];
    for (let i = 0; i < 6; i++) {
      const answer = await send(port, 'POST', '/api/authors', `create-${i}`, { name: `Author ${i}` });
      expect(answer.status).toBe(201);
      created.push({ iri: answer.body['@id'] as string, by: `create-${i}` });
    }
    // Each item read twice, on two new connections: the primary gives consecutive connections to different workers.
    const reads: { by: string; created: string }[] = [];
    for (const [i, { iri, by }] of created.entries()) {
      for (const time of [1, 2]) {
        const answer = await send(port, 'GET', iri, `read-${i}-${time}`);
        expect(answer.status).toBe(200);
        expect(answer.body.name).toBe(`Author ${i}`);
        reads.push({ by: `read-${i}-${time}`, created: by });
      }
    }
    await until(() => reads.every((read) => servedBy(server, read.by) !== undefined), 'the request logs', server);

    const pids = [...created.map((c) => c.by), ...reads.map((r) => r.by)].map((id) => servedBy(server, id));
    expect(new Set(pids)).toEqual(new Set(workers));
    // Some item was read by the worker that did not create it.
    expect(reads.some((read) => servedBy(server, read.by) !== servedBy(server, read.created))).toBe(true);
  });

  it('replaces a worker that dies, and keeps serving', async () => {
    const [victim, survivor] = listeningWorkers(server);
    process.kill(victim!, 'SIGKILL');
    await until(() => listeningWorkers(server).length === 3, 'a new worker to listen', server);
    const replacement = listeningWorkers(server)[2]!;
    expect(logLines(server)).toContainEqual(
      expect.objectContaining({
        pid: server.child.pid,
        worker: victim,
        signal: 'SIGKILL',
        msg: 'worker died: starting another',
      }),
    );
    expect(alive(victim!)).toBe(false);

    const served = new Set<number>();
    for (let i = 0; i < 4; i++) {
      expect((await send(port, 'GET', '/api/authors', `after-restart-${i}`)).status).toBe(200);
      await until(() => servedBy(server, `after-restart-${i}`) !== undefined, 'the request log', server);
      served.add(servedBy(server, `after-restart-${i}`)!);
    }
    expect(served).toEqual(new Set([survivor, replacement]));
  });

  it('on SIGTERM to the primary, lets a request in flight finish, stops every worker and exits 0', async () => {
    const workers = listeningWorkers(server).slice(1);
    // A POST whose body comes in two halves: a worker holds it, half read, when the signal arrives.
    const inFlight = halfSentPost(port, 'in-flight-1', 'Octavia E. Butler');
    await inFlight.arrived;

    server.child.kill('SIGTERM');
    await until(
      () => workers.every((pid) => logLines(server).some((l) => l.pid === pid && l.msg === 'closing the server')),
      'both workers to start closing',
      server,
    );
    expect(server.child.exitCode).toBeNull();
    const { response, text } = await inFlight.finish();
    expect(response.statusCode).toBe(201);
    expect(JSON.parse(text)).toMatchObject({ name: 'Octavia E. Butler' });

    expect(await server.exit).toBe(0);
    const lines = logLines(server);
    expect(lines).toContainEqual(
      expect.objectContaining({ pid: server.child.pid, reason: 'SIGTERM', workers: 2, msg: 'stopping the workers' }),
    );
    for (const pid of workers) {
      // The worker closed gracefully (with the primary's signal), and its process is gone.
      expect(lines).toContainEqual(expect.objectContaining({ pid, signal: 'SIGTERM', msg: 'closing the server' }));
      expect(lines).toContainEqual(expect.objectContaining({ pid, msg: 'the server is closed' }));
      expect(lines).toContainEqual(
        expect.objectContaining({ pid: server.child.pid, worker: pid, code: 0, msg: 'worker stopped' }),
      );
      expect(alive(pid)).toBe(false);
    }
    expect(lines.at(-1)).toMatchObject({ pid: server.child.pid, msg: 'every worker stopped' });
  }, 60_000);
});

describe('a cluster whose primary is killed', () => {
  it('takes its workers with it, so no orphan keeps the port', async () => {
    await ensureBuilt();
    const dir = mkdtempSync(join(tmpdir(), 'bookshop-cluster-'));
    const port = await freePort();
    const server = startNode(mainJs, {
      HOST: '127.0.0.1',
      PORT: String(port),
      DATABASE_URL: `sqlite:${join(dir, 'shop.db')}`,
      JWT_SECRET: TEST_JWT_SECRET,
      RATE_LIMIT_MAX: '0',
      WEB_CONCURRENCY: '2',
    });
    try {
      // The primary logs "worker listening" when a worker's port is up; the worker prints its own line just after: both.
      const bothListening = () =>
        listeningWorkers(server).length === 2 &&
        listeningWorkers(server).every((pid) => server.output().includes(`worker process ${pid})`));
      await until(() => bothListening() || server.child.exitCode !== null, 'two workers to listen', server);
      const workers = listeningWorkers(server);
      expect(workers).toHaveLength(2);
      server.child.kill('SIGKILL');
      await server.exit;
      // Node's cluster ends a worker whose primary's IPC channel closed (the orphans are then reaped by init).
      await until(() => workers.every((pid) => !alive(pid)), 'the workers to exit', server);
      await expect(fetch(`http://127.0.0.1:${port}/health`)).rejects.toThrow();
    } finally {
      for (const pid of listeningWorkers(server)) if (alive(pid)) process.kill(pid, 'SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('a cluster that cannot start', () => {
  it('exits 1 when its first worker fails before listening, instead of restarting it in a loop', async () => {
    await ensureBuilt();
    const dir = mkdtempSync(join(tmpdir(), 'bookshop-cluster-'));
    try {
      // Production start on an empty database: the worker refuses it (the migrations have not run).
      const server = startNode(mainJs, {
        NODE_ENV: 'production',
        HOST: '127.0.0.1',
        PORT: String(await freePort()),
        DATABASE_URL: `sqlite:${join(dir, 'empty.db')}`,
        JWT_SECRET: TEST_JWT_SECRET,
        WEB_CONCURRENCY: '2',
      });
      expect(await server.exit, server.output()).toBe(1);
      expect(server.output()).toContain('The database lacks what the resources need');
      const lines = logLines(server);
      expect(lines).toContainEqual(
        expect.objectContaining({ msg: 'a worker stopped before it listened: stopping the server', code: 1 }),
      );
      // Only the first worker was ever started.
      expect(server.output().match(/The bookshop could not start/g)).toHaveLength(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it('gives processes that generate the development JWT secret at the same moment one and the same secret', async () => {
    await ensureBuilt();
    const dir = mkdtempSync(join(tmpdir(), 'bookshop-secret-'));
    try {
      const file = join(dir, 'jwt-secret');
      const configJs = pathToFileURL(join(root, 'examples/bookshop/dist/config.js')).href;
      const script = `import(${JSON.stringify(configJs)}).then((m) => console.log('secret=' + m.jwtSecret({}, ${JSON.stringify(file)}, () => {})))`;
      const processes = Array.from({ length: 4 }, () =>
        execFileAsync(process.execPath, ['--input-type=module', '-e', script], { cwd: root }),
      );
      const secrets = (await Promise.all(processes)).map(({ stdout }) => /secret=(\S+)/.exec(stdout)?.[1]);
      expect(secrets[0]).toMatch(/^[\w-]{64}$/);
      expect(new Set(secrets)).toEqual(new Set([readFileSync(file, 'utf8')]));
      // Nothing is left beside the file.
      expect(readdirSync(dir)).toEqual(['jwt-secret']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses WEB_CONCURRENCY above 1 on an in-memory SQLite database, and values that are no number of processes', () => {
    const base = { JWT_SECRET: TEST_JWT_SECRET };
    expect(() => loadConfig({ ...base, DATABASE_URL: 'sqlite::memory:', WEB_CONCURRENCY: '2' })).toThrow(
      new ConfigError([
        'WEB_CONCURRENCY above 1 needs a database the processes share: sqlite::memory: would be one database per process.',
      ]),
    );
    expect(() => loadConfig({ ...base, WEB_CONCURRENCY: '0', DATABASE_POOL_MAX: '0' })).toThrow(
      new ConfigError([
        'DATABASE_POOL_MAX must be a number of connections from 1 to 1000 (got "0").',
        'WEB_CONCURRENCY must be a number of worker processes from 1 to 999, or auto (one per core) (got "0").',
      ]),
    );
    expect(loadConfig({ ...base, DATABASE_URL: 'sqlite::memory:' })).toMatchObject({ workers: 1, databasePoolMax: 10 });
    expect(loadConfig({ ...base, WEB_CONCURRENCY: 'auto', DATABASE_POOL_MAX: '25' })).toMatchObject({
      workers: expect.any(Number),
      databasePoolMax: 25,
    });
  });
});
