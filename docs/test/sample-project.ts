/**
 * A throw-away project in the system's temp folder that holds every sample, one folder each, as a user's app would
 * hold it: `node_modules/@resource-api/core` (and `cli`) link to the built workspace packages, next to the libraries
 * the samples import (the packages' own dependencies, and the example app's, e.g. close-with-grace), and a
 * `tsconfig.json` with the settings docs/getting-started.md asks for. All samples are type-checked in one TypeScript
 * program (one file per sample, so they cannot see each other) and compiled to JavaScript with inline source maps.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import ts from 'typescript';
import { root, type Sample } from './samples.js';

/** getting-started.md's minimal tsconfig, plus what the harness needs: isolated modules, node's types, source maps. */
const TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    module: 'NodeNext',
    strict: true,
    // `filters: [...]` alone is a labelled statement, valid TypeScript: an option fragment must not pass as a sample.
    allowUnusedLabels: false,
    isolatedModules: true,
    skipLibCheck: true,
    types: ['node'],
    inlineSourceMap: true,
    inlineSources: true,
  },
  include: ['samples'],
};

/** Where the libraries a user's project would have installed are found, first match wins. */
const DEPENDENCY_FOLDERS = [
  'packages/core/node_modules',
  'packages/cli/node_modules',
  'examples/bookshop/node_modules',
];

export interface SampleProject {
  readonly dir: string;
  /** The folder a sample runs in, and its compiled module. */
  folder(sample: Sample): string;
  script(sample: Sample): string;
  /** tsc's errors for the sample, pointing into the Markdown page; '' when it type-checks. */
  errors(sample: Sample): string;
  /** Rewrites `…/sample.ts:12:5` in node's output to the page's line. */
  mapOutput(sample: Sample, output: string): string;
  remove(): void;
}

function link(target: string, path: string): void {
  if (existsSync(path)) return;
  mkdirSync(dirname(path), { recursive: true });
  symlinkSync(target, path, 'dir');
}

function linkDependencies(modules: string): void {
  link(join(root, 'packages/core'), join(modules, '@resource-api/core'));
  link(join(root, 'packages/cli'), join(modules, '@resource-api/cli'));
  link(join(root, 'node_modules/@types/node'), join(modules, '@types/node'));
  for (const folder of DEPENDENCY_FOLDERS.map((relative) => join(root, relative))) {
    if (!existsSync(folder)) continue;
    for (const entry of readdirSync(folder)) {
      if (entry.startsWith('.')) continue;
      const names = entry.startsWith('@')
        ? readdirSync(join(folder, entry)).map((name) => `${entry}/${name}`)
        : [entry];
      for (const name of names) link(join(folder, name), join(modules, name));
    }
  }
}

const folderName = (sample: Sample) => sample.name.replace(/[^A-Za-z0-9.-]+/g, '_');

/** Writes the samples into a new temp project and compiles them; the workspace packages must be built. */
export function compileSamples(samples: readonly Sample[]): SampleProject {
  const dir = mkdtempSync(join(tmpdir(), 'resource-api-docs-'));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'docs-samples', private: true, type: 'module' }));
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(TSCONFIG, null, 2));
  linkDependencies(join(dir, 'node_modules'));
  const folder = (sample: Sample) => join(dir, 'samples', folderName(sample));
  const source = (sample: Sample) => join(folder(sample), 'sample.ts');
  for (const sample of samples) {
    mkdirSync(folder(sample), { recursive: true });
    writeFileSync(source(sample), sample.code);
  }

  const config = ts.getParsedCommandLineOfConfigFile(
    join(dir, 'tsconfig.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
        throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
      },
    },
  )!;
  const program = ts.createProgram({ rootNames: config.fileNames, options: config.options });
  const global = [...program.getOptionsDiagnostics(), ...program.getGlobalDiagnostics()];
  if (global.length > 0)
    throw new Error(global.map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n')).join('\n'));
  program.emit();

  const errors = (sample: Sample): string => {
    const file = program.getSourceFile(source(sample));
    if (!file) return `${sample.name}: the sample was not compiled.`;
    const diagnostics = [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)];
    return diagnostics
      .map((diagnostic) => {
        const { line, character } = file.getLineAndCharacterOfPosition(diagnostic.start ?? 0);
        const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
        const text = sample.code.split('\n')[line] ?? '';
        return `${sample.page}:${sample.lines[line]}:${character + 1} - error TS${diagnostic.code}: ${message}\n    ${text.trim()}`;
      })
      .join('\n');
  };

  const mapOutput = (sample: Sample, output: string): string => {
    const compiled = source(sample)
      .replace(/\.ts$/, '')
      .replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const location = new RegExp(`(?:file://)?${compiled}\\.[jt]s:(\\d+)`, 'g');
    return output.replace(
      location,
      (_, line: string) => `${sample.page}:${sample.lines[Number(line) - 1] ?? `(sample line ${line})`}`,
    );
  };

  return {
    dir,
    folder,
    script: (sample) => join(folder(sample), 'sample.js'),
    errors,
    mapOutput,
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
