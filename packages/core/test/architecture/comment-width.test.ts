/**
 * The repository's width, 120 columns, holds for comments too: Biome formats code to it but leaves comments as they
 * are written. Every comment line of src/ (`//`, and the lines of a `/** … *\/` block) fits, but for the code samples
 * under `@example` and in fenced blocks, which are copied whole.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const WIDTH = 120;
const src = new URL('../../src/', import.meta.url).pathname;

function listSources(directory: string): string[] {
  return readdirSync(directory).flatMap((name) => {
    const path = join(directory, name);
    if (statSync(path).isDirectory()) return listSources(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

/** The comment lines of a file over the width, as `file:line`, outside samples. */
function findWideComments(path: string): string[] {
  const found: string[] = [];
  let inSample = false;
  readFileSync(path, 'utf8')
    .split('\n')
    .forEach((line, index) => {
      const trimmed = line.trim();
      if (/^\*\s*@example/.test(trimmed) || /^(\*|\/\/)\s*```/.test(trimmed))
        inSample = !/```/.test(trimmed) || !inSample;
      if (trimmed.startsWith('*/') || trimmed.startsWith('/**')) inSample = false;
      const comment = trimmed.startsWith('//') || trimmed.startsWith('*') || trimmed.startsWith('/**');
      if (comment && !inSample && line.length > WIDTH) found.push(`${relative(src, path)}:${index + 1}`);
    });
  return found;
}

describe('the width of comments', () => {
  it(`keeps every comment line of src/ within ${WIDTH} columns`, () => {
    expect(listSources(src).flatMap(findWideComments)).toEqual([]);
  });
});
