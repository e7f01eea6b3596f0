/**
 * Functions named as actions: every function a file of src/ exports (`export function …`, `export const … = (…) =>`,
 * or re-exported under a name of its own) says what it does — a verb first (`buildIri`, `readStatus`), a predicate
 * (`isBackward`, `hasTable`, `grantsField`), or a conversion (`toLikePattern`) — never a noun (`iriOf`, `statusOf`).
 * The public API keeps the names users import (read from the package's entry points), and a few predicates named
 * after their subject are kept on purpose (listed below, with why).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const core = new URL('../../', import.meta.url).pathname;
const src = join(core, 'src');

/** The words a function's name may start with; the name is the word alone, or the word and a capitalised rest. */
const VERBS = (
  'add apply assert attach authenticate authorize build check collect compile complete compose compute ' +
  'count create decode define describe deserialize diff emit encode enforce escape execute factorize filter find ' +
  'format generate get hash import limit link list load log make mark merge negotiate open parse place plan prepare print process ' +
  'provide provision quote read refuse register remove render resolve respond restore rollback run send sniff sync translate ' +
  'validate verify warm write'
).split(' ');
/** Yes/no questions: `isBackward`, `hasTable`, `grantsField`, `readsOnItsOwn`. */
const PREDICATES =
  'is has can may should accepts carries changes counts grants holds ignores nests reads rebuilds writes'.split(' ');
/** Conversions: `toSnakeCase`, `toLikePattern`. */
const CONVERSIONS = ['to'];
const PREFIXES = [...VERBS, ...PREDICATES, ...CONVERSIONS];

/**
 * Deliberate exceptions, each `file: name`: predicates named after their subject, which read as the sentence they
 * answer and would read worse turned around.
 */
const EXCEPTIONS = [
  // "Does the If-Match header hold for these tags?" and "does If-None-Match match?", named after the HTTP headers.
  'pipeline/entity-tag.ts: ifMatchHolds',
  'pipeline/entity-tag.ts: ifNoneMatchMatches',
  // "Does the access-rule expression read the object?"; `mayReadObject` is the rule-level question built on it.
  'security/expression.ts: expressionReadsObject',
];

const isActionName = (name: string): boolean =>
  PREFIXES.some((prefix) => name === prefix || (name.startsWith(prefix) && /[A-Z0-9]/.test(name[prefix.length]!)));

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return files(path);
    return path.endsWith('.ts') && !path.endsWith('.test.ts') ? [path] : [];
  });
}

/** What one file declares and exports, as the scan needs it. */
interface ModuleExports {
  /** The functions declared at the top level (exported or not): `function f`, `const f = () =>`, `const f = function`. */
  readonly functions: Set<string>;
  /** The names the file exports, each to where its value comes from: this file (`name` as declared) or another one. */
  readonly exports: Map<string, { readonly file: string; readonly name: string }>;
  /** The files whose exports it passes on whole (`export * from`). */
  readonly exportsAll: string[];
}

const hasModifier = (node: ts.Node, kind: ts.SyntaxKind): boolean =>
  (ts.canHaveModifiers(node) ? ts.getModifiers(node) : undefined)?.some((m) => m.kind === kind) ?? false;

/** Reads the exports of one source file (path relative to src/). */
function readModule(path: string, text: string): ModuleExports {
  const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const functions = new Set<string>();
  const exports = new Map<string, { file: string; name: string }>();
  const exportsAll: string[] = [];
  const target = (specifier: ts.Expression | undefined): string | undefined =>
    specifier && ts.isStringLiteral(specifier) && specifier.text.startsWith('.')
      ? normalize(join(dirname(path), specifier.text)).replace(/\.js$/, '.ts')
      : undefined;
  for (const statement of file.statements) {
    const exported = hasModifier(statement, ts.SyntaxKind.ExportKeyword);
    if (ts.isFunctionDeclaration(statement) && statement.name) {
      functions.add(statement.name.text);
      if (exported) exports.set(statement.name.text, { file: path, name: statement.name.text });
    } else if (ts.isVariableStatement(statement)) {
      for (const declaration of statement.declarationList.declarations) {
        if (!ts.isIdentifier(declaration.name)) continue;
        let value = declaration.initializer;
        while (
          value &&
          (ts.isAsExpression(value) || ts.isSatisfiesExpression(value) || ts.isParenthesizedExpression(value))
        )
          value = value.expression;
        if (value && (ts.isArrowFunction(value) || ts.isFunctionExpression(value)))
          functions.add(declaration.name.text);
        if (exported) exports.set(declaration.name.text, { file: path, name: declaration.name.text });
      }
    } else if (ts.isExportDeclaration(statement) && !statement.isTypeOnly) {
      const from = target(statement.moduleSpecifier);
      if (statement.moduleSpecifier && !from) continue;
      if (!statement.exportClause) {
        if (from) exportsAll.push(from);
      } else if (ts.isNamedExports(statement.exportClause)) {
        for (const element of statement.exportClause.elements) {
          if (element.isTypeOnly) continue;
          const name = (element.propertyName ?? element.name).getText(file);
          exports.set(element.name.getText(file), { file: from ?? path, name });
        }
      }
    } else if (exported && (ts.isClassDeclaration(statement) || ts.isEnumDeclaration(statement)) && statement.name) {
      exports.set(statement.name.text, { file: path, name: statement.name.text });
    }
  }
  return { functions, exports, exportsAll };
}

type Modules = ReadonlyMap<string, ModuleExports>;

/** Where an exported name of a file is declared, following re-exports; undefined when not found in src/. */
function resolveExport(
  modules: Modules,
  file: string,
  name: string,
  seen = new Set<string>(),
): { file: string; name: string } | undefined {
  const key = `${file}: ${name}`;
  const module = modules.get(file);
  if (!module || seen.has(key)) return undefined;
  seen.add(key);
  const found = module.exports.get(name);
  if (found) return found.file === file ? found : resolveExport(modules, found.file, found.name, seen);
  for (const from of module.exportsAll) {
    const inner = resolveExport(modules, from, name, seen);
    if (inner) return inner;
  }
  return undefined;
}

/** Every name a file exports, those it passes on with `export *` included. */
function listExportedNames(modules: Modules, file: string, seen = new Set<string>()): string[] {
  const module = modules.get(file);
  if (!module || seen.has(file)) return [];
  seen.add(file);
  return [...module.exports.keys(), ...module.exportsAll.flatMap((from) => listExportedNames(modules, from, seen))];
}

/**
 * The exported functions of the files whose names are no action, as `file: name` (`name (declared as …)` for a
 * function exported under another name than its own): the entry points, the functions they export (under their own
 * names) and the exceptions left out.
 */
function findNounNames(modules: Modules, entryPoints: readonly string[], exceptions: readonly string[]): string[] {
  const publicApi = new Set(
    entryPoints.flatMap((entry) =>
      listExportedNames(modules, entry).flatMap((name) => {
        const declared = resolveExport(modules, entry, name);
        return declared ? [`${declared.file}: ${declared.name}`] : [];
      }),
    ),
  );
  const nouns: string[] = [];
  for (const [file, module] of modules) {
    if (entryPoints.includes(file)) continue;
    for (const name of module.exports.keys()) {
      const declared = resolveExport(modules, file, name);
      if (!declared || !modules.get(declared.file)!.functions.has(declared.name)) continue;
      if (publicApi.has(`${declared.file}: ${declared.name}`) && declared.name === name) continue;
      if (exceptions.includes(`${file}: ${name}`) || isActionName(name)) continue;
      const renamed = declared.file !== file || declared.name !== name;
      const origin = declared.file === file ? declared.name : `${declared.file}: ${declared.name}`;
      nouns.push(renamed ? `${file}: ${name} (declared as ${origin})` : `${file}: ${name}`);
    }
  }
  return nouns.sort();
}

/** The package's entry points (`exports` of package.json), as files of src/: `./dist/testing/index.js` → `testing/index.ts`. */
function readEntryPoints(): string[] {
  const manifest = JSON.parse(readFileSync(join(core, 'package.json'), 'utf8')) as {
    exports: Record<string, { default: string }>;
  };
  return Object.values(manifest.exports).map((entry) =>
    entry.default.replace(/^\.\/dist\//, '').replace(/\.js$/, '.ts'),
  );
}

const modules: Modules = new Map(
  files(src).map((path) => [relative(src, path), readModule(relative(src, path), readFileSync(path, 'utf8'))]),
);
const entryPoints = readEntryPoints();

describe('function names (issue 35)', () => {
  it('reads the public API from the entry points of package.json', () => {
    expect(entryPoints).toEqual(['index.ts', 'testing/index.ts']);
    const publicNames = entryPoints.flatMap((entry) => listExportedNames(modules, entry));
    expect(publicNames).toEqual(
      expect.arrayContaining(['compare', 'isIn', 'orderBy', 'ApiResource', 'collectionQuery', 'validationError']),
    );
    expect(publicNames).toEqual(expect.arrayContaining(['testDatabases', 'buildTestApp']));
  });

  it('finds a noun name in either form, and one re-exported under a noun, but no action', () => {
    const fixture: Modules = new Map([
      [
        'a/iri.ts',
        readModule(
          'a/iri.ts',
          [
            'export function statusOf(error: unknown) { return 1; }',
            "export const iriOf = (id: number): string => '/books/' + id;",
            'export const likePattern = async function (v: string) { return v; };',
            'export function* nestedItems() {}',
            "export function buildIri(id: number) { return '/books/' + id; }",
            'export const toLikePattern = (v: string) => v;',
            'export const isBackward = (): boolean => true;',
            'export const readableFields = () => [];',
            'export const MAXIMUM = 3;',
            'export function compare() {}',
            'const local = () => 1;',
            'export { local as helper };',
          ].join('\n'),
        ),
      ],
      ['b.ts', readModule('b.ts', "export { buildIri as iri, MAXIMUM as max } from './a/iri.js';")],
      [
        'index.ts',
        readModule('index.ts', "export { compare } from './a/iri.js';\nexport type { X } from './a/iri.js';"),
      ],
    ]);
    expect(findNounNames(fixture, ['index.ts'], [])).toEqual([
      'a/iri.ts: helper (declared as local)',
      'a/iri.ts: iriOf',
      'a/iri.ts: likePattern',
      'a/iri.ts: nestedItems',
      'a/iri.ts: readableFields',
      'a/iri.ts: statusOf',
      'b.ts: iri (declared as a/iri.ts: buildIri)',
    ]);
    expect(findNounNames(fixture, ['index.ts'], ['a/iri.ts: statusOf'])).not.toContain('a/iri.ts: statusOf');
  });

  it('names every exported function of src/ as an action, a predicate or a conversion', () => {
    const exported = [...modules].flatMap(([file, module]) =>
      [...module.exports.keys()].filter((name) => {
        const declared = resolveExport(modules, file, name);
        return declared !== undefined && modules.get(declared.file)!.functions.has(declared.name);
      }),
    );
    expect(exported.length).toBeGreaterThan(250);
    expect(findNounNames(modules, entryPoints, EXCEPTIONS)).toEqual([]);
  });

  it('keeps no exception that is gone or no longer needed', () => {
    for (const exception of EXCEPTIONS) {
      const [file, name] = exception.split(': ') as [string, string];
      expect(modules.get(file)?.functions.has(name), exception).toBe(true);
      expect(isActionName(name), exception).toBe(false);
    }
  });
});
