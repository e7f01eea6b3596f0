/**
 * `make:resource` through the binary: answers piped on stdin (with a wrong answer asked again) and the same from
 * options, in both declaration forms; the files written are compiled with the workspace's tsc (strict, TC39
 * decorators) and loaded by the CLI itself from a config (debug:resources, db:sync), so they are real resources.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureCliBuilt, projectFolder, root, runCli } from './support/cli.js';

let folder: string;

beforeAll(async () => {
  folder = projectFolder('cli-make-');
  await ensureCliBuilt();
}, 200_000);

afterAll(() => rmSync(folder, { recursive: true, force: true }));

const WRITER = `/**
 * Writer, declared with decorators (\`@ApiResource\` / \`@ApiProperty\`).
 * Written by \`resource-api make:resource\`: add descriptions, constraints, filters, groups and access rules as you
 * need them (docs/declaring-resources.md).
 */
import { ApiProperty, ApiResource } from '@resource-api/core';

@ApiResource()
export class Writer {
  @ApiProperty({ type: 'string' })
  name!: string;

  @ApiProperty({ type: 'text', nullable: true })
  bio!: string | null;

  @ApiProperty({ toMany: 'Magazine', mappedBy: 'writer' })
  magazines!: unknown[];
}
`;

const MAGAZINE = `/**
 * Magazine, declared with a plain object (\`defineResource\`).
 * Written by \`resource-api make:resource\`: add descriptions, constraints, filters, groups and access rules as you
 * need them (docs/declaring-resources.md).
 */
import { defineResource } from '@resource-api/core';

export const Magazine = defineResource({
  name: 'Magazine',
  fields: {
    title: { type: 'string' },
    issue: { type: 'integer', nullable: true },
    tags: { type: 'string[]' },
    writer: { toOne: 'Writer', inversedBy: 'magazines' },
  },
});
`;

describe('make:resource', () => {
  it('asks for the name, the form and each field (answers piped in), asking again after a wrong answer', async () => {
    const answers = [
      'Writer',
      'decorator',
      'name',
      '',
      '',
      'bio',
      'txt',
      'text',
      'yes',
      'magazines',
      'toMany',
      'Magazine',
      'writer',
      '',
    ];
    const run = await runCli(['make:resource'], { cwd: folder, input: `${answers.join('\n')}\n` });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Resource name (PascalCase, e.g. BookReview): \n');
    expect(run.stdout).toContain('Declare it with decorator or object [decorator]: \n');
    expect(run.stdout).toContain(' Unknown field type "txt". Did you mean "text"?');
    expect(run.stdout).toContain(
      'The field of Magazine pointing back (mappedBy; empty for a many-to-many owned here): \n',
    );
    expect(run.stdout).toMatch(
      /\nWrote src\/resources\/writer\.ts \(Writer, 3 field\(s\), decorator form\): add it to the resources your app registers\.\n$/,
    );
    expect(readFileSync(join(folder, 'src/resources/writer.ts'), 'utf8')).toBe(WRITER);
  });

  it('takes everything from options without asking', async () => {
    const fields = [
      'title:string',
      'issue:integer:nullable',
      'tags:string[]',
      'writer:toOne:Writer:inversedBy=magazines',
    ];
    const run = await runCli(
      ['make:resource', 'Magazine', '--style', 'object', ...fields.flatMap((field) => ['--field', field])],
      { cwd: folder },
    );
    expect(run).toEqual({
      code: 0,
      stdout:
        '\nWrote src/resources/magazine.ts (Magazine, 4 field(s), object form): add it to the resources your app registers.\n',
      stderr: '',
    });
    expect(readFileSync(join(folder, 'src/resources/magazine.ts'), 'utf8')).toBe(MAGAZINE);
  });

  it('writes files that compile (strict) and load: the CLI reads them from a config, and syncs their tables', async () => {
    writeFileSync(
      join(folder, 'tsconfig.json'),
      JSON.stringify({
        extends: join(root, 'tsconfig.base.json'),
        compilerOptions: {
          rootDir: 'src',
          outDir: 'dist',
          typeRoots: [join(root, 'node_modules/@types')],
          types: ['node'],
        },
        include: ['src'],
      }),
    );
    await promisify(execFile)(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', folder], {
      cwd: folder,
      timeout: 120_000,
    });
    writeFileSync(
      join(folder, 'resource-api.config.mjs'),
      `import { Magazine } from './dist/resources/magazine.js';\nimport { Writer } from './dist/resources/writer.js';\nexport default { resources: [Writer, Magazine], database: 'sqlite:var/app.db' };\n`,
    );
    const debug = await runCli(['debug:resources', '--json'], { cwd: folder });
    expect(debug).toMatchObject({ code: 0, stderr: '' });
    const resources = JSON.parse(debug.stdout) as {
      name: string;
      path: string;
      fields: { name: string; type: string; nullable: boolean }[];
    }[];
    expect(resources.map((r) => [r.name, r.path])).toEqual([
      ['Writer', '/api/writers'],
      ['Magazine', '/api/magazines'],
    ]);
    expect(resources[0]!.fields).toEqual([
      expect.objectContaining({ name: 'name', type: 'string', nullable: false }),
      expect.objectContaining({ name: 'bio', type: 'text', nullable: true }),
      expect.objectContaining({ name: 'magazines', type: 'toMany Magazine' }),
    ]);
    expect(resources[1]!.fields.map((f) => `${f.name} ${f.type}${f.nullable ? '?' : ''}`)).toEqual([
      'title string',
      'issue integer?',
      'tags string[]',
      'writer toOne Writer',
    ]);
    const sync = await runCli(['db:sync'], { cwd: folder });
    expect(sync).toEqual({
      code: 0,
      stdout: 'Synced sqlite:var/app.db: tables writer, magazine and their columns and indexes are there.\n',
      stderr: '',
    });
    expect(existsSync(join(folder, 'var/app.db'))).toBe(true);
  });

  it('refuses to overwrite a file unless --force (exit 1)', async () => {
    const args = ['make:resource', 'Writer', '--field', 'name:string', '--style', 'object'];
    const refused = await runCli(args, { cwd: folder });
    expect(refused).toEqual({
      code: 1,
      stdout: '',
      stderr: `resource-api make:resource: ${join(folder, 'src/resources/writer.ts')} exists: choose another --out, or pass --force to overwrite it.\n`,
    });
    expect(readFileSync(join(folder, 'src/resources/writer.ts'), 'utf8')).toBe(WRITER);
    const forced = await runCli([...args, '--force', '--out', 'other/writer.ts'], { cwd: folder });
    expect(forced.code).toBe(0);
    expect(readFileSync(join(folder, 'other/writer.ts'), 'utf8')).toContain("name: { type: 'string' },");
  });

  it('usage errors exit 2: a bad --field, a bad name or style, no name with --no-interaction, the input ending too soon', async () => {
    const cases: [string[], string, string?][] = [
      [
        ['make:resource', 'Thing', '--field', 'title:strin'],
        'resource-api make:resource: --field title:strin: Unknown field type "strin". Did you mean "string"? Types: string, text, integer, float, boolean, datetime, date, json, string[], password, toOne, toMany.',
      ],
      [
        ['make:resource', 'Thing', '--field', 'author:toOne'],
        'resource-api make:resource: --field author:toOne: a toOne field names its target resource: author:toOne:Author.',
      ],
      [
        ['make:resource', 'Thing', '--field', 'a:string', '--field', 'a:text'],
        'resource-api make:resource: The field "a" is given twice.',
      ],
      [
        ['make:resource', 'thing', '-n'],
        'resource-api make:resource: "thing" is not a resource name: use PascalCase letters and digits (BookReview).',
      ],
      [
        ['make:resource', 'Thing', '--style', 'class', '-n'],
        'resource-api make:resource: Unknown style "class": use decorator or object.',
      ],
      [
        ['make:resource', '--no-interaction'],
        'resource-api make:resource: Missing argument <name>: with --no-interaction the name is not asked.',
      ],
      [
        ['make:resource'],
        'resource-api make:resource: The input ended before this was answered: Resource name (PascalCase, e.g. BookReview).',
        '',
      ],
    ];
    for (const [args, message, input] of cases) {
      const run = await runCli(args, { cwd: folder, ...(input === undefined ? {} : { input }) });
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr).toBe(`${message}\nRun "resource-api make:resource --help".\n`);
    }
  });
});
