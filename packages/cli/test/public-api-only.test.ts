/**
 * The CLI is a client of the core like any app: it imports `@resource-api/core` (the public index) and nothing of
 * the core's internals, by path or by sub-path, so everything it does is possible with the public API.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const src = fileURLToPath(new URL('../src', import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sources(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  );
}

/** The module specifiers of the import and export statements (and dynamic imports) of a file. */
const specifiers = (code: string): string[] =>
  [...code.matchAll(/(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+'([^']+)'|import\(\s*'([^']+)'\s*\)/g)].map(
    (m) => (m[1] ?? m[2])!,
  );

describe('the CLI', () => {
  it('imports the core through its public index only', () => {
    const files = sources(src);
    expect(files.length).toBeGreaterThan(10);
    const core: string[] = [];
    const internal: string[] = [];
    for (const file of files) {
      for (const specifier of specifiers(readFileSync(file, 'utf8'))) {
        if (specifier === '@resource-api/core') core.push(file);
        else if (specifier.startsWith('@resource-api/core/') || /(^|\/)core\/(src|dist)\//.test(specifier))
          internal.push(`${file}: ${specifier}`);
      }
    }
    expect(core.length).toBeGreaterThan(0);
    expect(internal).toEqual([]);
  });

  it('would see an internal import', () => {
    expect(
      specifiers(
        "import { x } from '../../core/src/state/database.js';\nconst m = await import('@resource-api/core/testing');",
      ),
    ).toEqual(['../../core/src/state/database.js', '@resource-api/core/testing']);
  });
});
