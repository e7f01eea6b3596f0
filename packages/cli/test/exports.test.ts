/**
 * The documents the binary exports for the bookshop (examples/bookshop/resource-api.config.js): the OpenAPI document
 * in JSON and YAML is the one the bookshop server serves, the SDL is printGraphQLSchema's, and client:generate writes
 * the typed client's files. No database is involved.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { buildMetadata, printGraphQLSchema } from '@resource-api/core';
import { buildBookshop } from '../../../examples/bookshop/src/app.js';
import { resources } from '../../../examples/bookshop/src/resources/index.js';
import { bookshopConfig, bookshopDir, ensureCliBuilt, runCli } from './support/cli.js';

let folder: string;

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'cli-exports-'));
  await ensureCliBuilt();
}, 200_000);

afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** What the bookshop server answers at `path`, on an in-memory database. */
async function served(path: string): Promise<string> {
  const app = await buildBookshop({
    database: 'sqlite::memory:',
    jwtSecret: 'a-test-secret-that-is-at-least-32-bytes-long',
  });
  try {
    return (await app.inject({ method: 'GET', url: path })).body;
  } finally {
    await app.close();
  }
}

describe('openapi:export', () => {
  it('prints, as JSON, the document the bookshop serves at /api/docs.json', async () => {
    const run = await runCli(['openapi:export']);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    const document = JSON.parse(run.stdout) as {
      openapi: string;
      info: { title: string };
      paths: Record<string, Record<string, unknown>>;
    };
    expect(document.openapi).toBe('3.1.0');
    expect(document.info.title).toBe('Bookshop API');
    expect(Object.keys(document.paths)).toEqual(
      expect.arrayContaining(['/books', '/books/{id}', '/authors', '/authors/{id}/books', '/auth']),
    );
    expect(Object.keys(document.paths['/books']!).sort()).toEqual(['get', 'post']);
    expect(document).toEqual(JSON.parse(await served('/api/docs.json')));
  });

  it('prints YAML with --format yaml: the served /api/docs.yaml, the same document', async () => {
    const run = await runCli(['openapi:export', '--format', 'yaml']);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toMatch(/^openapi: 3\.1\.0\n/);
    expect(run.stdout).toBe(await served('/api/docs.yaml'));
    expect(parseYaml(run.stdout)).toEqual(JSON.parse((await runCli(['openapi:export'])).stdout));
  });

  it('writes a file with --out, in YAML when it ends in .yaml', async () => {
    const file = join(folder, 'docs/openapi.yaml');
    const run = await runCli(['openapi:export', '--out', file]);
    expect(run).toEqual({ code: 0, stdout: `Wrote ${file}\n`, stderr: '' });
    expect(parseYaml(readFileSync(file, 'utf8'))).toMatchObject({ openapi: '3.1.0', info: { title: 'Bookshop API' } });
  });
});

describe('graphql:export', () => {
  it('prints the SDL of printGraphQLSchema', async () => {
    const run = await runCli(['graphql:export']);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout.trimEnd()).toBe(printGraphQLSchema(buildMetadata({ resources })).trimEnd());
    expect(run.stdout).toMatch(/^type Book implements Node \{/m);
  });

  it('writes it to a file with --out', async () => {
    const file = join(folder, 'schema.graphql');
    const run = await runCli(['graphql:export', '-o', file]);
    expect(run).toEqual({ code: 0, stdout: `Wrote ${file}\n`, stderr: '' });
    expect(readFileSync(file, 'utf8')).toContain('type Query {');
  });
});

describe('client:generate', () => {
  it('writes the typed client files into --out, with a login method for the bookshop login route', async () => {
    const out = join(folder, 'api-client');
    const run = await runCli(['client:generate', '--out', out, '--base-url', 'http://127.0.0.1:8000']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const files = readdirSync(out).sort();
    expect(files).toEqual(['client.ts', 'index.ts', 'runtime.ts', 'types.ts']);
    expect(run.stdout).toBe(`Wrote 4 file(s) to ${out}: ${files.join(', ')}.\n`);
    const client = readFileSync(join(out, 'client.ts'), 'utf8');
    expect(client).toContain('http://127.0.0.1:8000');
    expect(client).toMatch(/login/);
    expect(readFileSync(join(out, 'types.ts'), 'utf8')).toMatch(/\bBook\b/);
  });

  it('gives the client no login when the app checks tokens issued elsewhere (no secret, so no login route)', async () => {
    const cwd = mkdtempSync(join(folder, 'elsewhere-'));
    const config = join(cwd, 'resource-api.config.js');
    const resourcesUrl = pathToFileURL(join(bookshopDir, 'dist/resources/index.js')).href;
    writeFileSync(
      config,
      `import { resources } from ${JSON.stringify(resourcesUrl)};
export default { resources, security: { jwt: { jwksUrl: 'https://id.example/jwks.json' }, users: { resource: 'User' } } };
`,
    );
    const run = await runCli(['client:generate', '--config', config, '--out', join(cwd, 'client')]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const client = readFileSync(join(cwd, 'client', 'client.ts'), 'utf8');
    expect(client).not.toMatch(/login/);
    expect(client).toMatch(/Book/);
  });

  it('writes ./api-client in the working directory by default', async () => {
    const cwd = mkdtempSync(join(folder, 'default-'));
    const run = await runCli(['client:generate', '--config', bookshopConfig], { cwd });
    expect(run).toEqual({
      code: 0,
      stdout: 'Wrote 4 file(s) to api-client: client.ts, index.ts, runtime.ts, types.ts.\n',
      stderr: '',
    });
    expect(readdirSync(join(cwd, 'api-client')).sort()).toEqual(['client.ts', 'index.ts', 'runtime.ts', 'types.ts']);
  });
});
