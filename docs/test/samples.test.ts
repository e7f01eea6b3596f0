/**
 * Every code sample of the documentation compiles and runs (see docs/README.md#code-samples): each ```ts block of
 * docs/*.md and README.md, or each `ts continued` chain, is type-checked with the workspace's TypeScript against the
 * built packages as a user imports them, then run with node in its own folder with PORT set. It passes when it exits
 * 0, or when it keeps running and answers HTTP on PORT. Test names point at the block: `docs/collections.md:48`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../examples/bookshop/test/compiled.js';
import { buildPackages } from './built-packages.js';
import { runSample } from './run-sample.js';
import { compileSamples, type SampleProject } from './sample-project.js';
import { allSamples } from './samples.js';

const samples = allSamples();

/** Runs at most `size` tasks at a time: the machine is shared, and each sample is a node process. */
function slots(size: number) {
  let free = size;
  const waiting: (() => void)[] = [];
  return async <T>(task: () => Promise<T>): Promise<T> => {
    if (free === 0) await new Promise<void>((resolve) => waiting.push(resolve));
    else free--;
    try {
      return await task();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else free++;
    }
  };
}
const running = slots(2);

let project: SampleProject | undefined;
let cliErrors = '';

beforeAll(async () => {
  cliErrors = await buildPackages();
  project = compileSamples(samples);
}, 600_000);

afterAll(() => project?.remove());

describe.concurrent('the code samples of the docs', () => {
  it('finds the samples', () => {
    expect(samples.length).toBeGreaterThan(0);
  });

  for (const sample of samples) {
    const chain = sample.fences.length > 1 ? ` (continued at ${sample.fences.slice(1).join(', ')})` : '';
    it(`${sample.name}${chain}`, async () => {
      const built = project!;
      if (sample.code.includes("'@resource-api/cli")) expect(cliErrors, sample.name).toBe('');
      expect(built.errors(sample), `${sample.name} does not type-check`).toBe('');
      const run = await running(async () => runSample(built.script(sample), built.folder(sample), await freePort()));
      expect(run.outcome, `${sample.name} failed:\n${built.mapOutput(sample, run.output)}`).toMatch(
        /^(exited 0|served)$/,
      );
    }, 600_000);
  }
});
