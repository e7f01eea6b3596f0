/**
 * `pnpm bench:install-size` (issue 36): what `npm install @resource-api/core fastify` costs an app on SQLite.
 *
 * Packs `@resource-api/core` as it would be published (`pnpm pack`), installs the tarball and `fastify` with npm into
 * an empty project in the system's temporary folder (its `allowScripts` lets better-sqlite3 compile its native part,
 * as a user's project does), then counts the installed packages (every folder of `node_modules` with a
 * `package.json`, nested ones included) and the bytes on disk, and the largest packages. The budget: 80 MB and 150
 * packages. `--keep` leaves the project behind.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pnpmCommand } from './processes.js';

const BUDGET = { megabytes: 80, packages: 150 };
const core = fileURLToPath(new URL('../../packages/core/', import.meta.url));

function pnpm(args: string[], cwd: string): void {
  const [command, prefix] = pnpmCommand();
  execFileSync(command, [...prefix, ...args], { cwd, stdio: 'ignore' });
}

/** Bytes on disk under `path` (files and symbolic links as they are, not followed). */
function bytesUnder(path: string): number {
  const stat = lstatSync(path);
  if (!stat.isDirectory()) return stat.size;
  return readdirSync(path).reduce((sum, name) => sum + bytesUnder(join(path, name)), 0);
}

/** The package folders under a `node_modules` folder, nested `node_modules` included. */
function packagesUnder(modules: string): string[] {
  if (!existsSync(modules)) return [];
  return readdirSync(modules).flatMap((name) => {
    if (name.startsWith('.')) return [];
    const path = join(modules, name);
    if (name.startsWith('@')) return packagesUnder(path);
    if (!existsSync(join(path, 'package.json'))) return [];
    return [path, ...packagesUnder(join(path, 'node_modules'))];
  });
}

const work = mkdtempSync(join(tmpdir(), 'resource-api-install-size-'));
try {
  pnpm(['pack', '--pack-destination', work], core);
  const tarball = readdirSync(work).find((file) => file.endsWith('.tgz'))!;
  const project = join(work, 'app');
  execFileSync('mkdir', [project]);
  // npm 11 runs a dependency's install script only when the project allows it (a user approves better-sqlite3's).
  const manifest = { name: 'app', private: true, type: 'module', allowScripts: { 'better-sqlite3': true } };
  writeFileSync(join(project, 'package.json'), JSON.stringify(manifest));
  // npm as a user runs it: none of the settings pnpm passes to the scripts it runs.
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_config_/i.test(name)));
  const started = Date.now();
  execFileSync('npm', ['install', '--no-audit', '--no-fund', join(work, tarball), 'fastify'], {
    cwd: project,
    env,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const seconds = (Date.now() - started) / 1000;
  const modules = join(project, 'node_modules');
  const packages = packagesUnder(modules);
  const megabytes = bytesUnder(modules) / 1_000_000;
  const largest = packages
    .map((path) => ({ name: path.slice(modules.length + 1), mb: bytesUnder(path) / 1_000_000 }))
    .sort((a, b) => b.mb - a.mb)
    .slice(0, 10);
  const verdict = (value: number, limit: number) => (value <= limit ? 'met' : 'missed');
  console.log(`npm install @resource-api/core fastify (SQLite app), ${seconds.toFixed(0)} s:`);
  console.log(
    `  ${megabytes.toFixed(1)} MB on disk (budget ${BUDGET.megabytes}: ${verdict(megabytes, BUDGET.megabytes)})`,
  );
  console.log(
    `  ${packages.length} packages (budget ${BUDGET.packages}: ${verdict(packages.length, BUDGET.packages)})`,
  );
  console.log('  largest (nested packages counted in their parent too):');
  for (const { name, mb } of largest) console.log(`    ${name.padEnd(50)} ${mb.toFixed(1)} MB`);
  if (process.argv.includes('--keep')) console.log(`  kept: ${project}`);
} finally {
  if (!process.argv.includes('--keep')) rmSync(work, { recursive: true, force: true });
}
