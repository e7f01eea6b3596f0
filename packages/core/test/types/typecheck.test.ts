/**
 * Vitest runs no type checker: the type tests of this folder (`*.test-d.ts`, `expectTypeOf` and `@ts-expect-error`)
 * would pass whatever their types say. This test compiles them with tsc and fails on any error, an expected error that
 * does not happen included.
 */
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const project = fileURLToPath(new URL('./tsconfig.json', import.meta.url));

describe('type tests', () => {
  it('compile without errors', async () => {
    const result = await promisify(execFile)(process.execPath, [tsc, '-p', project, '--pretty', 'false'], {
      encoding: 'utf8',
    }).then(
      () => ({ code: 0, output: '' }),
      (error: { code: number; stdout: string; stderr: string }) => ({
        code: error.code,
        output: error.stdout + error.stderr,
      }),
    );
    // The compiler's messages as the failure, so a broken type test says which line and why.
    expect(result.output).toBe('');
    expect(result.code).toBe(0);
  }, 120_000);
});
