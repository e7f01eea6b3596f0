/** Every code block of the docs is run by some test: a `ts` sample here, or a language's own test (RUN_ELSEWHERE). */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { allSamples, root, RUN_ELSEWHERE, samplesOf } from './samples.js';

describe('the code blocks of the docs', () => {
  it('are all of a kind some test runs (or not programs at all)', () => {
    expect(() => allSamples()).not.toThrow();
  });

  it('refuses a program block no test runs, naming the page and line', () => {
    expect(() => samplesOf('docs/x.md', 'text\n\n```js\nconsole.log(1);\n```\n')).toThrow(
      /docs\/x\.md:3: a `js` block, which no test runs/,
    );
    expect(() => samplesOf('docs/x.md', '```\nconst a = 1;\n```\n')).toThrow(/docs\/x\.md:1: a `` block/);
    expect(samplesOf('docs/x.md', '```sh\nls\n```\n\n```ts\nconsole.log(1);\n```\n')).toHaveLength(1);
  });

  it('has each test that runs the other blocks read them from their page', () => {
    for (const [language, { page, test }] of Object.entries(RUN_ELSEWHERE)) {
      expect(readFileSync(join(root, page), 'utf8'), page).toContain(`\`\`\`${language}\n`);
      expect(readFileSync(join(root, test), 'utf8'), test).toContain(page.replace('docs/', ''));
    }
  });
});
