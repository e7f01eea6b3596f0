/**
 * The samples import the built packages, as users do. `ensureBuilt()` of the example app's tests builds the workspace
 * (core and the example app) under a lock when it is stale; @resource-api/cli is built here on its own when its build
 * is older than its sources, so a half-written CLI fails the samples that import it, not every sample.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ensureBuilt, isProjectBuilt } from '../../examples/bookshop/test/compiled.js';
import { root } from './samples.js';

/** Builds what is stale; resolves with the CLI's build errors ('' when it built or was current). */
export async function buildPackages(): Promise<string> {
  // `pnpm -r build` fails as a whole when the CLI does not compile, after building the rest: if the rest is current
  // now, the second call returns at once.
  await ensureBuilt().catch(() => ensureBuilt());
  const cli = join(root, 'packages/cli');
  if (isProjectBuilt('packages/cli', ['packages/cli/dist/index.js'])) return '';
  try {
    await promisify(execFile)(
      process.execPath,
      [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'],
      { cwd: cli, timeout: 120_000 },
    );
    return '';
  } catch (error) {
    const { stdout, message } = error as { stdout?: string; message: string };
    return `@resource-api/cli does not build:\n${stdout || message}`;
  }
}
