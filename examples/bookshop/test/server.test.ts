/**
 * The compiled server as a person starts it: `node examples/bookshop/dist/main.js` in a child process, reached over
 * real HTTP with fetch, then stopped with SIGTERM. Builds the workspace first (`pnpm -r build`) when the build is
 * missing or older than the sources. Also the settings it reads from the environment.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseUrl, DEFAULT_DATABASE_URL, listenAddress } from '../src/config.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const mainJs = join(root, 'examples/bookshop/dist/main.js');
const coreJs = join(root, 'packages/core/dist/index.js');

/** The newest modification time of the .ts files under `dir`. */
function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(path));
    else if (entry.name.endsWith('.ts')) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

function buildIsCurrent(): boolean {
  if (!existsSync(mainJs) || !existsSync(coreJs)) return false;
  return (
    statSync(mainJs).mtimeMs >= newestSource(join(root, 'examples/bookshop/src')) &&
    statSync(coreJs).mtimeMs >= newestSource(join(root, 'packages/core/src'))
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

/** A TCP port nobody listens on right now. */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

describe('the compiled server started with node', () => {
  let child: ChildProcess | undefined;
  let port = 0;
  let output = '';
  let exit: Promise<number | null>;

  beforeAll(async () => {
    if (!buildIsCurrent()) await buildWorkspace();
    port = await freePort();
    child = spawn(process.execPath, [mainJs], {
      cwd: root,
      env: { ...process.env, HOST: '127.0.0.1', PORT: String(port), DATABASE_URL: 'sqlite::memory:' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    exit = new Promise((resolve) => child!.once('exit', (code) => resolve(code)));

    const deadline = Date.now() + 20_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`The server exited with ${child.exitCode}:\n${output}`);
      try {
        await fetch(`http://127.0.0.1:${port}/api`);
        break;
      } catch {
        if (Date.now() > deadline) throw new Error(`The server did not answer within 20 s:\n${output}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  }, 150_000);

  afterAll(async () => {
    if (child && child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await exit;
    }
  });

  it('prints the URL it listens on', () => {
    expect(output).toContain(`Bookshop API listening on http://127.0.0.1:${port}/api (database: sqlite::memory:)`);
  });

  it('creates an author over HTTP and serves it back', async () => {
    const base = `http://127.0.0.1:${port}`;
    const created = await fetch(`${base}/api/authors`, {
      method: 'POST',
      headers: { 'content-type': 'application/ld+json', accept: 'application/ld+json' },
      body: JSON.stringify({ name: 'Octavia E. Butler' }),
    });
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe('/api/authors/1');
    expect(created.headers.get('content-type')).toBe('application/ld+json; charset=utf-8');
    expect(created.headers.get('link')).toBe(`<${base}/api/docs.jsonld>; rel="http://www.w3.org/ns/hydra/core#apiDocumentation"`);
    const author = { '@context': '/api/contexts/Author', '@id': '/api/authors/1', '@type': 'Author', id: 1, name: 'Octavia E. Butler', books: [] };
    expect(await created.json()).toEqual(author);

    const book = await fetch(`${base}/api/books`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Kindred', author: '/api/authors/1' }),
    });
    expect(book.status).toBe(201);

    const read = await fetch(`${base}/api/authors/1`);
    expect(read.status).toBe(200);
    expect(await read.json()).toEqual({ ...author, books: ['/api/books/1'] });
  });

  it('logs requests with pino as JSON lines', () => {
    const lines = output.split('\n').filter((line) => line.startsWith('{'));
    const completed = lines.map((line) => JSON.parse(line) as { msg?: string; res?: { statusCode: number } }).filter((entry) => entry.msg === 'request completed');
    expect(completed.map((entry) => entry.res?.statusCode)).toEqual(expect.arrayContaining([200, 201]));
  });

  it('closes gracefully on SIGTERM and exits with 0', async () => {
    child!.kill('SIGTERM');
    expect(await exit).toBe(0);
    expect(output).toContain('closing the server');
  });
});

describe('the settings read from the environment', () => {
  it('listens on 127.0.0.1:8000 unless HOST and PORT say otherwise', () => {
    expect(listenAddress({})).toEqual({ host: '127.0.0.1', port: 8000 });
    expect(listenAddress({ HOST: '0.0.0.0', PORT: '8080' })).toEqual({ host: '0.0.0.0', port: 8080 });
    expect(() => listenAddress({ PORT: 'eighty' })).toThrow('PORT "eighty" must be a number from 1 to 65535.');
    expect(() => listenAddress({ PORT: '70000' })).toThrow('PORT "70000" must be a number from 1 to 65535.');
  });

  it('keeps its default SQLite file under examples/bookshop/var whatever the working directory', () => {
    expect(DEFAULT_DATABASE_URL).toBe(`sqlite:${join(root, 'examples/bookshop/var/bookshop.db')}`);
    expect(databaseUrl({})).toBe(DEFAULT_DATABASE_URL);
  });

  it('takes DATABASE_URL for PostgreSQL, an SQLite file or an in-memory SQLite, and refuses anything else', () => {
    for (const url of ['postgres://user@127.0.0.1:5432/db', 'sqlite:/tmp/shop.db', 'sqlite::memory:']) expect(databaseUrl({ DATABASE_URL: url })).toBe(url);
    expect(() => databaseUrl({ DATABASE_URL: 'mysql://root@localhost/shop' })).toThrow(/is not supported/);
  });
});
