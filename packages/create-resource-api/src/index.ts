/**
 * The project generator behind `npm create resource-api@latest <directory>`: `createProject` writes a ready project
 * into a new (or empty) directory: its package.json (scripts `dev`, `build`, `start`, `test`), a tsconfig for standard
 * decorators, one resource, a test over HTTP with `@resource-api/core/testing`, a README and a .gitignore. The files
 * other than package.json are copied from `template/`; the versions of the packages it depends on are this package's
 * own (resource-api's packages are released together) and those the project was tried with.
 *
 * The package's public interface is its command, `npm create resource-api@latest <directory>` (docs/compatibility.md):
 * this module is exported for its bin and the repository's tests, so every name here is `@internal`.
 */
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const TEMPLATE = fileURLToPath(new URL('../template', import.meta.url));
const OWN_VERSION = (
  JSON.parse(readFileSync(fileURLToPath(new URL('../package.json', import.meta.url)), 'utf8')) as { version: string }
).version;

/** Options of `createProject`. @internal */
export interface ProjectOptions {
  /** Where to write the project: a directory that does not exist yet, or an empty one. */
  readonly directory: string;
  /** The package name (default: the directory's name, made a valid npm name). */
  readonly name?: string;
  /** The version range of `@resource-api/core` and `@resource-api/cli` (default: `^` this generator's version). */
  readonly coreVersion?: string;
}

/** The project cannot be written where asked (the directory is not empty); its message says why. @internal */
export class ProjectError extends Error {}

/** A valid npm package name from a directory name: lower case, letters, digits, `-`, `.` and `_` only. @internal */
export function toPackageName(directory: string): string {
  const name = basename(resolve(directory))
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^[._-]+|-+$/g, '');
  return name === '' ? 'my-api' : name;
}

/** The project's package.json. */
function describePackage(name: string, coreVersion: string): Record<string, unknown> {
  return {
    name,
    version: '0.1.0',
    private: true,
    type: 'module',
    engines: { node: '>=20' },
    scripts: {
      dev: 'tsx watch src/main.ts',
      build: 'tsc -p tsconfig.build.json',
      start: 'tsc -p tsconfig.build.json && node dist/main.js',
      test: 'vitest run',
    },
    // mercurius turns GraphQL on (`/graphql`); without it the API serves REST alone.
    dependencies: { '@resource-api/core': coreVersion, fastify: '^5.12.0', mercurius: '^16.10.1' },
    devDependencies: {
      '@resource-api/cli': coreVersion,
      '@types/node': '^20.19.0',
      tsx: '^4.23.0',
      typescript: '~5.9.3',
      // Vite 8 does not lower standard decorators on Node 20; vitest 4 runs on Vite 7 too.
      vite: '^7.3.0',
      vitest: '~4.1.12',
    },
    // npm 11 runs no dependency's install script unless the project allows it: better-sqlite3 compiles (or fetches)
    // its native part in one, and tsx's esbuild checks its binary in another. Older npm ignores the field.
    allowScripts: { 'better-sqlite3': true, esbuild: true },
  };
}

/** Writes the project; returns the absolute path of its directory. @internal */
export function createProject(options: ProjectOptions): string {
  const directory = resolve(options.directory);
  if (existsSync(directory) && readdirSync(directory).length > 0)
    throw new ProjectError(`${directory} is not empty: choose a new directory, or empty this one.`);
  mkdirSync(directory, { recursive: true });
  cpSync(TEMPLATE, directory, { recursive: true });
  // npm leaves a package's .gitignore out of its tarball: the template keeps it under another name.
  renameSync(join(directory, 'gitignore'), join(directory, '.gitignore'));
  const name = options.name ?? toPackageName(directory);
  const manifest = describePackage(name, options.coreVersion ?? `^${OWN_VERSION}`);
  writeFileSync(join(directory, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  const readme = join(directory, 'README.md');
  writeFileSync(readme, readFileSync(readme, 'utf8').replaceAll('{{name}}', name));
  return directory;
}
