/**
 * The public API, guarded (issue 36): API Extractor reads every entry point of every published package (each subpath
 * of its `exports` map, from the built `.d.ts`) and writes a report of every exported name and its type; the reports
 * are committed as `packages/<package>/api/<entry>.api.md`, and this test fails when what the code exports differs
 * from them. `pnpm api:report` (UPDATE_API_REPORT=1) writes the reports instead of comparing them; `pnpm api:check`
 * runs this file alone. The compatibility policy is docs/compatibility.md.
 *
 * Beyond the comparison, the rules of that policy:
 * - an exported name without a release tag is public; `@internal` marks what is exported for the repository itself
 *   (never for users), `@beta` what may still change in a minor release;
 * - every exported name is documented (a doc comment on its declaration) or marked `@internal`;
 * - a type that the public API names is exported too (so that it is in the report), except where an `@internal`
 *   member names it, where a sibling entry point of the package exports it (`@resource-api/core/testing` names the
 *   main entry's `ResourceApiOptions`), or for the type-level helpers listed in `TYPE_HELPERS`. API Extractor writes
 *   each such exception into the report (`ae-forgotten-export`), where a reviewer sees it.
 */
import { execFile } from 'node:child_process';
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
  mkdirSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Extractor, ExtractorConfig, ExtractorLogLevel, type ExtractorMessage } from '@microsoft/api-extractor';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newestSource, root, underBuildLock } from '../../examples/bookshop/test/compiled.js';

/** The published packages (the others of the workspace are private). */
const PACKAGES = ['packages/core', 'packages/cli', 'packages/create-resource-api'];

/**
 * Types the public signatures name but that are not exported on purpose: the type-level machinery of the inference
 * (what `defineResource` and `InferResource` compute an item type with) and the generic options of the constraint
 * factories. What they compute is the public API (and tested by the type tests); their names are not.
 */
const TYPE_HELPERS: Record<string, readonly string[]> = {
  '@resource-api/core': ['AnyClass', 'Flat', 'ItemOf', 'ReadValue', 'WriteDataOf', 'Options'],
};

interface EntryPoint {
  /** `@resource-api/core`, `@resource-api/core/testing`. */
  readonly importPath: string;
  readonly packageName: string;
  readonly packageFolder: string;
  /** The built declaration file the exports map names. */
  readonly types: string;
  /** `index` for `.`, else the subpath: `testing` for `./testing`. */
  readonly reportName: string;
  /** The committed report. */
  readonly report: string;
}

function entryPoints(): EntryPoint[] {
  return PACKAGES.flatMap((folder) => {
    const packageFolder = join(root, folder);
    const manifest = JSON.parse(readFileSync(join(packageFolder, 'package.json'), 'utf8')) as {
      name: string;
      exports: Record<string, { types?: string }>;
    };
    return Object.entries(manifest.exports).map(([subpath, target]) => {
      if (!target.types) throw new Error(`${folder}/package.json: the export "${subpath}" names no types`);
      const reportName = subpath === '.' ? 'index' : subpath.replace(/^\.\//, '').replaceAll('/', '-');
      return {
        importPath: subpath === '.' ? manifest.name : `${manifest.name}/${subpath.slice(2)}`,
        packageName: manifest.name,
        packageFolder,
        types: join(packageFolder, target.types),
        reportName,
        report: join(packageFolder, 'api', `${reportName}.api.md`),
      };
    });
  });
}

/** The packages' `dist/` is older than their sources: compile them (under the workspace's build lock). */
async function buildPackages(): Promise<void> {
  const isCurrent = () =>
    PACKAGES.every((folder) => {
      const built = join(root, folder, 'dist/tsconfig.build.tsbuildinfo');
      return existsSync(built) && statSync(built).mtimeMs >= newestSource(join(root, folder, 'src'));
    });
  await underBuildLock(isCurrent, async () => {
    const tsc = join(root, 'node_modules/typescript/bin/tsc');
    const projects = PACKAGES.map((folder) => join(folder, 'tsconfig.build.json'));
    await promisify(execFile)(process.execPath, [tsc, '-b', ...projects], { cwd: root, timeout: 240_000 });
  });
}

interface Extracted {
  readonly text: string;
  /** API Extractor's errors: anything but the messages the policy turns off or records in the report. */
  readonly errors: string[];
}

function extract(entry: EntryPoint, folder: string): Extracted {
  const errors: string[] = [];
  const config = ExtractorConfig.prepare({
    configObject: {
      projectFolder: entry.packageFolder,
      mainEntryPointFilePath: entry.types,
      compiler: {
        overrideTsconfig: {
          compilerOptions: {
            module: 'nodenext',
            moduleResolution: 'nodenext',
            target: 'es2022',
            lib: ['es2023', 'esnext.decorators'],
            types: ['node'],
            strict: true,
            skipLibCheck: true,
          },
          files: [entry.types],
        },
      },
      apiReport: { enabled: true, reportFolder: folder, reportTempFolder: folder, reportFileName: entry.reportName },
      docModel: { enabled: false },
      dtsRollup: { enabled: false },
      tsdocMetadata: { enabled: false },
      newlineKind: 'lf',
      messages: {
        compilerMessageReporting: { default: { logLevel: ExtractorLogLevel.Error } },
        extractorMessageReporting: {
          default: { logLevel: ExtractorLogLevel.Error },
          // No release tag means public: the tags mark the exceptions (docs/compatibility.md).
          'ae-missing-release-tag': { logLevel: ExtractorLogLevel.None },
          // Members may go undocumented (the report says so); exported names may not: see the test below.
          'ae-undocumented': { logLevel: ExtractorLogLevel.None },
          // `@internal` marks an internal name; renaming it `_name` as well would break its callers for nothing.
          'ae-internal-missing-underscore': { logLevel: ExtractorLogLevel.None },
          // Written into the report, where the test below checks each.
          'ae-forgotten-export': { logLevel: ExtractorLogLevel.None, addToApiReportFile: true },
        },
        // TSDoc's own syntax (`\{` in prose, `@` in words) matters to a documentation generator the project does not
        // use (docs/reference.md has its own): the release tags are read all the same.
        tsdocMessageReporting: { default: { logLevel: ExtractorLogLevel.None } },
      },
    },
    configObjectFullPath: join(entry.packageFolder, 'api-extractor.json'),
    packageJsonFullPath: join(entry.packageFolder, 'package.json'),
  });
  Extractor.invoke(config, {
    localBuild: true,
    messageCallback: (message: ExtractorMessage) => {
      if (message.logLevel === ExtractorLogLevel.Error || message.logLevel === ExtractorLogLevel.Warning) {
        const where = message.sourceFilePath
          ? ` (${message.sourceFilePath.replace(root, '')}:${message.sourceFileLine})`
          : '';
        errors.push(`${message.messageId}: ${message.text}${where}`);
      }
      message.handled = true;
    },
  });
  return { text: readFileSync(join(folder, `${entry.reportName}.api.md`), 'utf8'), errors };
}

/** The names a report exports. */
const exportedNames = (report: string) =>
  new Set(
    [...report.matchAll(/^export (?:declare )?(?:abstract )?(?:class|interface|type|function|const|enum) (\w+)/gm)].map(
      (m) => m[1]!,
    ),
  );

/** The comment block above each declaration of a report: its lines from the first `//` to the declaration. */
function commentedDeclarations(report: string): { comments: string[]; declaration: string }[] {
  const found: { comments: string[]; declaration: string }[] = [];
  let comments: string[] = [];
  for (const line of report.split('\n')) {
    const trimmed = line.trim();
    if (trimmed.startsWith('//')) comments.push(trimmed);
    else {
      if (comments.length > 0 && trimmed !== '') found.push({ comments, declaration: trimmed });
      comments = [];
    }
  }
  return found;
}

const entries = entryPoints();
const temp = mkdtempSync(join(tmpdir(), 'resource-api-api-report-'));
const extracted = new Map<EntryPoint, Extracted>();

beforeAll(async () => {
  await buildPackages();
  for (const entry of entries) {
    const folder = join(temp, entry.packageName.replace('/', '+'));
    mkdirSync(folder, { recursive: true });
    const result = extract(entry, folder);
    extracted.set(entry, result);
    if (process.env.UPDATE_API_REPORT) {
      mkdirSync(join(entry.packageFolder, 'api'), { recursive: true });
      writeFileSync(entry.report, result.text);
    }
  }
}, 300_000);

afterAll(() => rmSync(temp, { recursive: true, force: true }));

describe('the public API reports (packages/*/api/*.api.md)', () => {
  it('has one report per entry point of the published packages, and no other', () => {
    const expected = entries.map((entry) => entry.report).sort();
    const committed = PACKAGES.flatMap((folder) => {
      const api = join(root, folder, 'api');
      return existsSync(api) ? readdirSync(api).map((name) => join(api, name)) : [];
    }).sort();
    expect(
      committed,
      'a report without an entry point, or an entry point without a report: run `pnpm api:report`',
    ).toEqual(expected);
  });

  for (const entry of entries) {
    describe(entry.importPath, () => {
      it('exports what its committed report says', () => {
        const { text } = extracted.get(entry)!;
        const committed = existsSync(entry.report) ? readFileSync(entry.report, 'utf8') : '';
        expect(
          text,
          `The public API of ${entry.importPath} changed. If that is meant, run \`pnpm api:report\`, commit ` +
            `${entry.report.replace(root, '')}, and add a changeset (\`pnpm changeset\`) saying what changed for users ` +
            '(a removed or changed name is a breaking change: see docs/compatibility.md).',
        ).toBe(committed);
      });

      it('passes API Extractor without an error', () => {
        expect(extracted.get(entry)!.errors).toEqual([]);
      });

      it('documents every exported name, or marks it @internal', () => {
        const undocumented = commentedDeclarations(extracted.get(entry)!.text)
          .filter(({ comments }) => comments.some((c) => /^\/\/ @\w+ \(undocumented\)/.test(c) && !/@internal/.test(c)))
          .filter(({ declaration }) => declaration.startsWith('export '))
          .map(({ declaration }) => declaration);
        expect(undocumented, 'add a /** doc comment */ to the declaration (not to the re-export)').toEqual([]);
      });

      it('exports every type its public signatures name', () => {
        const siblings = new Set(
          entries
            .filter((other) => other.packageName === entry.packageName && other !== entry)
            .flatMap((other) => [...exportedNames(extracted.get(other)!.text)]),
        );
        const forgotten = commentedDeclarations(extracted.get(entry)!.text).flatMap(({ comments, declaration }) => {
          const internal = comments.some((c) => /^\/\/ @internal/.test(c));
          return comments
            .map((c) => /\(ae-forgotten-export\) The symbol "(\w+?)(?:_\d+)?"/.exec(c)?.[1])
            .filter((name): name is string => name !== undefined)
            .filter((name) => !internal && !siblings.has(name) && !TYPE_HELPERS[entry.importPath]?.includes(name))
            .map((name) => `${name} (named by: ${declaration})`);
        });
        expect(
          forgotten,
          `export these from ${entry.importPath}'s index.ts, or mark what names them @internal`,
        ).toEqual([]);
      });
    });
  }
});
