/**
 * The one-way imports of docs/adr/0005-folder-layers.md: the folders of src/ (each file at its root a node of its own)
 * import one another without a cycle, and so do the files inside each folder, type imports included; metadata and
 * declarations know no transport or database; the pipeline knows no transport; only the transports, plugin.ts and
 * the test kit touch Fastify; no code is evaluated from strings.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const src = new URL('../../src/', import.meta.url).pathname;

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : path.endsWith('.ts') ? [path] : [];
  });
}

const sources = files(src).map((path) => ({ path: relative(src, path), text: readFileSync(path, 'utf8') }));
const importsOf = (text: string, { types = true } = {}) =>
  [...text.matchAll(/^import( type)?[^'"]*from '([^']+)'/gm)].filter((m) => types || !m[1]).map((m) => m[2]!);
const offenders = (folder: RegExp, forbidden: RegExp, options?: { types: boolean }) =>
  sources
    .filter((s) => folder.test(s.path))
    .flatMap((s) =>
      importsOf(s.text, options)
        .filter((i) => forbidden.test(i))
        .map((i) => `${s.path} → ${i}`),
    );

describe('import rules', () => {
  it('keeps metadata/, declare/ and build/ free of fastify, knex, graphql and the drivers, types included', () => {
    // The persistence contracts' database handles are filled in by state/ (`state/database-handles.ts`).
    expect(offenders(/^(metadata|declare|build)\//, /^(fastify|knex|graphql|mercurius|pg|better-sqlite3)/)).toEqual([]);
  });

  it('keeps the pipeline free of any transport', () => {
    expect(offenders(/^pipeline\//, /^(fastify|graphql|mercurius)|routing\//)).toEqual([]);
  });

  it('lets only the transports (routing/, graphql/, production/), telemetry/, plugin.ts and testing/ import fastify', () => {
    // telemetry/ hooks the API's routes (request spans, metrics) and serves the metrics route.
    expect(offenders(/^(?!routing\/|graphql\/|production\/|telemetry\/|plugin\.ts|testing\/)/, /^fastify/)).toEqual([]);
  });

  it('keeps graphql and mercurius inside graphql/', () => {
    expect(offenders(/^(?!graphql\/)/, /^(graphql|mercurius|dataloader)$/)).toEqual([]);
  });

  it('lets only state/ talk to the database drivers', () => {
    expect(offenders(/^(?!state\/|testing\/)/, /^(pg|better-sqlite3)$/)).toEqual([]);
  });

  it("takes jose's values from the subpaths it uses, not its entry point (which loads all of JOSE at start)", () => {
    expect(offenders(/./, /^jose$/, { types: false })).toEqual([]);
  });

  it('never evaluates code from strings', () => {
    expect(sources.filter((s) => /\beval\(|new Function\(/.test(s.text)).map((s) => s.path)).toEqual([]);
  });
});

/** A module a source file imports from src/, as paths under src/: `a/b.ts` imports `c/d.ts`. */
interface LocalImport {
  readonly from: string;
  readonly to: string;
}

/**
 * The modules of src/ a file names, in every form: `import` and `import type`, `export … from`, `import('…')` in a
 * type or a call. Types count: a type-only import ties two files together as much as any other.
 */
function localImports(path: string, text: string): string[] {
  const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    let specifier: ts.Node | undefined;
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier)
      specifier = node.moduleSpecifier;
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) specifier = node.argument.literal;
    else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword)
      specifier = node.arguments[0];
    else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference))
      specifier = node.moduleReference.expression;
    if (specifier && ts.isStringLiteral(specifier) && specifier.text.startsWith('.')) {
      found.push(normalize(join(dirname(path), specifier.text)).replace(/\.js$/, '.ts'));
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

/** The folder a file of src/ is in (its first segment; subfolders belong to it); a file at the root is its own node. */
const folderOf = (path: string): string => path.split('/')[0]!;

/**
 * The cycles of the graph that `nodeOf` makes of the imports (each file to its node): one for each group of nodes that
 * reach one another, its shortest, as `a → b → a`, with an import that makes each step.
 */
function cyclesOf(imports: readonly LocalImport[], nodeOf: (path: string) => string): string[] {
  const edges = new Map<string, Map<string, LocalImport>>();
  for (const found of imports) {
    const [from, to] = [nodeOf(found.from), nodeOf(found.to)];
    if (from === to) continue;
    const out = edges.get(from) ?? edges.set(from, new Map()).get(from)!;
    if (!out.has(to)) out.set(to, found);
    if (!edges.has(to)) edges.set(to, new Map());
  }
  // Tarjan's strongly connected components.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const components: string[][] = [];
  const connect = (node: string): void => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    for (const next of edges.get(node)!.keys()) {
      if (!index.has(next)) {
        connect(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (stack.includes(next)) low.set(node, Math.min(low.get(node)!, index.get(next)!));
    }
    if (low.get(node) !== index.get(node)) return;
    const component = stack.splice(stack.indexOf(node));
    if (component.length > 1) components.push(component.sort());
  };
  for (const node of [...edges.keys()].sort()) if (!index.has(node)) connect(node);
  /** The shortest way from `start` back to it inside a component, breadth first. */
  const cycleThrough = (start: string, component: readonly string[]): string[] => {
    const cameFrom = new Map<string, string>();
    const queue = [start];
    let last: string | undefined;
    for (let i = 0; i < queue.length && last === undefined; i++) {
      for (const next of edges.get(queue[i]!)!.keys()) {
        if (next === start) {
          last = queue[i]!;
          break;
        }
        if (component.includes(next) && !cameFrom.has(next)) {
          cameFrom.set(next, queue[i]!);
          queue.push(next);
        }
      }
    }
    const path = [start];
    for (let node = last!; node !== start; node = cameFrom.get(node)!) path.splice(1, 0, node);
    return [...path, start];
  };
  return components.map((component) => {
    const path = component
      .map((node) => cycleThrough(node, component))
      .reduce((shortest, path) => (path.length < shortest.length ? path : shortest));
    const steps = path.slice(1).map((to, i) => edges.get(path[i]!)!.get(to)!);
    return `${path.join(' → ')} (${steps.map((step) => `${step.from} → ${step.to}`).join(', ')})`;
  });
}

const imports: LocalImport[] = sources.flatMap((s) => localImports(s.path, s.text).map((to) => ({ from: s.path, to })));

describe('folder layers (docs/adr/0005-folder-layers.md)', () => {
  it('reads every form of import, type-only ones too', () => {
    const text = [
      "import type { A } from '../metadata/types.js';",
      "export { b } from './b.js';",
      "type C = import('../errors.js').ApiError;",
      "const d = () => import('./knex/d.js');",
    ].join('\n');
    expect(localImports('state/x.ts', text)).toEqual([
      'metadata/types.ts',
      'state/b.ts',
      'errors.ts',
      'state/knex/d.ts',
    ]);
  });

  it('names a cycle and the imports that make it', () => {
    const graph = [
      { from: 'a/x.ts', to: 'b/y.ts' },
      { from: 'b/y.ts', to: 'c.ts' },
      { from: 'b/y.ts', to: 'd/w.ts' },
      { from: 'c.ts', to: 'a/z.ts' },
    ];
    expect(cyclesOf(graph, folderOf)).toEqual(['a → b → c.ts → a (a/x.ts → b/y.ts, b/y.ts → c.ts, c.ts → a/z.ts)']);
    expect(cyclesOf(graph.slice(0, 3), folderOf)).toEqual([]);
  });

  it('keeps the folders of src/ (each file at its root a node of its own) free of cycles, type imports included', () => {
    expect(imports.length).toBeGreaterThan(500);
    expect(cyclesOf(imports, folderOf)).toEqual([]);
  });

  it('keeps the files inside each folder free of cycles, type imports included', () => {
    const folders = [...new Set(sources.map((s) => folderOf(s.path)))];
    const inside = (folder: string) => imports.filter((i) => folderOf(i.from) === folder && folderOf(i.to) === folder);
    expect(folders.flatMap((folder) => cyclesOf(inside(folder), (path) => path))).toEqual([]);
  });
});

/** Each function's length in lines, for the files of a folder (a nested function counts within its outer one too). */
function longFunctions(folder: RegExp, maximum: number): string[] {
  const long: string[] = [];
  for (const source of sources.filter((s) => folder.test(s.path))) {
    const file = ts.createSourceFile(source.path, source.text, ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node): void => {
      if (ts.isFunctionLike(node) && 'body' in node && node.body) {
        const lines =
          file.getLineAndCharacterOfPosition(node.getEnd()).line -
          file.getLineAndCharacterOfPosition(node.getStart()).line +
          1;
        const name = (node as { name?: ts.Node }).name?.getText(file) ?? '(anonymous)';
        if (lines > maximum) long.push(`${source.path}: ${name}, ${lines} lines`);
      }
      ts.forEachChild(node, visit);
    };
    visit(file);
  }
  return long;
}

describe('size rules', () => {
  it('keeps every function of graphql/ within 100 lines (the schema is built by small builders, one concern each)', () => {
    expect(longFunctions(/^graphql\//, 100)).toEqual([]);
  });
});
