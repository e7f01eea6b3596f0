/**
 * The one-way imports of ARCHITECTURE.md: metadata and declarations know no transport or database; the pipeline knows
 * no transport; only routing/, plugin.ts and the test kit touch Fastify; no code is evaluated from strings.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
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
const importsOf = (text: string) => [...text.matchAll(/^import[^'"]*from '([^']+)'/gm)].map((m) => m[1]!);
const offenders = (folder: RegExp, forbidden: RegExp) =>
  sources.filter((s) => folder.test(s.path)).flatMap((s) => importsOf(s.text).filter((i) => forbidden.test(i)).map((i) => `${s.path} → ${i}`));

describe('import rules', () => {
  it('keeps metadata/ and declare/ free of fastify, knex and graphql', () => {
    expect(offenders(/^(metadata|declare)\//, /^(fastify|knex|graphql|mercurius|pg|better-sqlite3)/)).toEqual([]);
  });

  it('keeps the pipeline free of any transport', () => {
    expect(offenders(/^pipeline\//, /^(fastify|graphql|mercurius)|routing\//)).toEqual([]);
  });

  it('lets only the transports (routing/, graphql/, production/), plugin.ts and testing/ import fastify', () => {
    expect(offenders(/^(?!routing\/|graphql\/|production\/|plugin\.ts|testing\/)/, /^fastify/)).toEqual([]);
  });

  it('keeps graphql and mercurius inside graphql/', () => {
    expect(offenders(/^(?!graphql\/)/, /^(graphql|mercurius|dataloader)$/)).toEqual([]);
  });

  it('lets only state/ talk to the database drivers', () => {
    expect(offenders(/^(?!state\/|testing\/)/, /^(pg|better-sqlite3)$/)).toEqual([]);
  });

  it('never evaluates code from strings', () => {
    expect(sources.filter((s) => /\beval\(|new Function\(/.test(s.text)).map((s) => s.path)).toEqual([]);
  });
});

/** Each function's length in lines, for the files of a folder (a nested function counts within its outer one too). */
function longFunctions(folder: RegExp, maximum: number): string[] {
  const long: string[] = [];
  for (const source of sources.filter((s) => folder.test(s.path))) {
    const file = ts.createSourceFile(source.path, source.text, ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node): void => {
      if (ts.isFunctionLike(node) && 'body' in node && node.body) {
        const lines = file.getLineAndCharacterOfPosition(node.getEnd()).line - file.getLineAndCharacterOfPosition(node.getStart()).line + 1;
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
