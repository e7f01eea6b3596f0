/**
 * The files of the generated project that the docs show (`ts generated <path>` blocks) are the generator's own,
 * byte for byte: the template they come from is compiled, started and tested as an installed project by
 * `packages/create-resource-api/test/installed-project.test.ts`, so what the page shows is what runs there.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generatedFilesOf, root, samplePages } from './samples.js';

const TEMPLATE = join(root, 'packages/create-resource-api/template');
const shown = samplePages().flatMap((page) => generatedFilesOf(page, readFileSync(join(root, page), 'utf8')));

describe('the generated files the docs show', () => {
  it('are there (getting-started shows the server and the resource)', () => {
    expect(shown.map((file) => file.path)).toEqual(expect.arrayContaining(['src/app.ts', 'src/resources/book.ts']));
  });

  it.each(shown.map((file) => [file.name, file] as const))('%s is the template file, unchanged', (_name, file) => {
    expect(file.code).toBe(readFileSync(join(TEMPLATE, file.path), 'utf8'));
  });
});
