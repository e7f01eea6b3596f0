/**
 * The config module through the binary: found in the working directory (.js, .mjs) or by --config, an async function
 * as the default export, the plugin's naming options applied (prefix), and mistakes in it as one line and exit 1.
 */
import { mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureCliBuilt, projectFolder, runCli } from './support/cli.js';

let folder: string;

const BOOK = `import { defineResource } from '@resource-api/core';
export const Book = defineResource({ name: 'Book', fields: { title: { type: 'string' } }, filters: [{ type: 'order', properties: ['title'] }] });
`;

beforeAll(async () => {
  folder = projectFolder('cli-config-');
  writeFileSync(join(folder, 'book.js'), BOOK);
  await ensureCliBuilt();
}, 200_000);

afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** Writes `source` as `name` in the project folder; returns its path. */
function config(name: string, source: string): string {
  const file = join(folder, name);
  writeFileSync(file, source);
  return file;
}

describe('the config module', () => {
  it("works as docs/cli.md shows it (the page's js block, run by the binary)", async () => {
    const page = readFileSync(new URL('../../../docs/cli.md', import.meta.url), 'utf8');
    const blocks = [...page.matchAll(/^```js\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
    expect(blocks).toHaveLength(1);
    const project = join(folder, 'as-documented');
    mkdirSync(join(project, 'dist/resources'), { recursive: true });
    // The page imports defineConfig from the CLI package, as an app that installed it does.
    mkdirSync(join(project, 'node_modules/@resource-api'), { recursive: true });
    symlinkSync(fileURLToPath(new URL('../', import.meta.url)), join(project, 'node_modules/@resource-api/cli'), 'dir');
    writeFileSync(
      join(project, 'dist/resources/index.js'),
      `import { Book } from '../../../book.js';\nexport const resources = [Book];\n`,
    );
    writeFileSync(join(project, 'resource-api.config.js'), blocks[0]!);
    const debug = await runCli(['debug:resources', '--json'], { cwd: project });
    expect(debug).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(debug.stdout)).toEqual([expect.objectContaining({ name: 'Book', path: '/api/books' })]);
    const openapi = await runCli(['openapi:export'], { cwd: project });
    expect(openapi).toMatchObject({ code: 0, stderr: '' });
    expect((JSON.parse(openapi.stdout) as { info: unknown }).info).toEqual({ title: 'Bookshop API', version: '1.0.0' });
  });

  it('may default-export an async function; prefix and documentation apply as in the plugin', async () => {
    const file = config(
      'async.config.js',
      `import { Book } from './book.js';
export default async () => ({ resources: [Book], prefix: '/v2', documentation: { title: 'Shelf', version: '2.0.0' } });
`,
    );
    const debug = await runCli(['debug:resources', '--json', '--config', file], { cwd: folder });
    expect(debug).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(debug.stdout)).toEqual([
      expect.objectContaining({ name: 'Book', path: '/v2/books', table: 'book' }),
    ]);
    const openapi = await runCli(['openapi:export', '-c', 'async.config.js'], { cwd: folder });
    expect(openapi).toMatchObject({ code: 0, stderr: '' });
    const document = JSON.parse(openapi.stdout) as { info: unknown; servers: unknown; paths: Record<string, unknown> };
    expect(document.info).toEqual({ title: 'Shelf', version: '2.0.0' });
    expect(document.servers).toEqual([{ url: '/v2', description: 'This API' }]);
    expect(Object.keys(document.paths)).toEqual(['/books', '/books/{id}']);
  });

  it('is found in the working directory as resource-api.config.mjs', async () => {
    const file = config(
      'resource-api.config.mjs',
      `import { Book } from './book.js';\nexport default { resources: [Book] };\n`,
    );
    try {
      const run = await runCli(['graphql:export'], { cwd: folder });
      expect(run).toMatchObject({ code: 0, stderr: '' });
      expect(run.stdout).toMatch(/^type Book implements Node \{/m);
    } finally {
      rmSync(file);
    }
  });

  it.each([
    [
      'no resources',
      'export default { database: "sqlite::memory:" };',
      'The config file FILE: "resources" must be a non-empty list of declared resources.',
    ],
    [
      'no default export',
      'export const resources = [];',
      'The config file FILE must default-export an object { resources, ... } (or a function returning one).',
    ],
    [
      'a database that is no string',
      `import { Book } from './book.js';\nexport default { resources: [Book], database: 5432 };`,
      'The config file FILE: "database" must be a URL string (sqlite:…, postgres://…, mysql://…).',
    ],
    [
      'an import that fails',
      `import { Nope } from './book.js';\nexport default { resources: [Nope] };`,
      "Cannot load the config file FILE: The requested module './book.js' does not provide an export named 'Nope'",
    ],
    [
      'a declaration error',
      `import { defineResource } from '@resource-api/core';\nexport default { resources: [defineResource({ name: 'Book', fields: { author: { toOne: 'Autor' } } })] };`,
      'Resource "Book", field "author": unknown relation target "Autor"',
    ],
  ])('with %s: exit 1, one line', async (_case, source, message) => {
    const file = config('broken.config.js', `${source}\n`);
    const run = await runCli(['debug:resources', '--config', file], { cwd: folder });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(`resource-api debug:resources: ${message.replace('FILE', file)}`);
    expect(run.stderr.trimEnd().split('\n')).toHaveLength(1);
  });
});
