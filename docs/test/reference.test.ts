/**
 * docs/reference.md is what docs/tools/generate-reference.ts makes of the doc comments, and every public option has
 * one. `pnpm docs:reference` (UPDATE_REFERENCE=1) writes the file instead of comparing it.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { generateReference, type Reference } from '../tools/generate-reference.js';

const file = new URL('../reference.md', import.meta.url);
let reference: Reference;

beforeAll(() => {
  reference = generateReference();
  if (process.env.UPDATE_REFERENCE) writeFileSync(file, reference.markdown);
}, 120_000);

describe('docs/reference.md', () => {
  it('is generated from the doc comments of the code', () => {
    expect(
      readFileSync(file, 'utf8'),
      'docs/reference.md is out of date: run `pnpm docs:reference` and commit it',
    ).toBe(reference.markdown);
  });

  it('documents every public option: none lacks a doc comment', () => {
    expect(reference.undocumented, 'add a /** doc comment */ to these in packages/core/src').toEqual([]);
  });
});
