/**
 * The code samples of the documentation: every ```ts block of docs/*.md and of the root README.md. A block whose
 * info string is `ts continued` is appended to the page's previous ts block(s), and the chain is one sample, run at
 * its last block. Each line of a sample remembers its line in the page, so errors point into the Markdown.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('../..', import.meta.url));

export interface Sample {
  /** `docs/collections.md:42`: the page and the line of the opening fence of the sample's first block. */
  readonly name: string;
  /** The page, relative to the repository root. */
  readonly page: string;
  /** The lines of the opening fences of its blocks (one, or the blocks of a `ts continued` chain). */
  readonly fences: readonly number[];
  readonly code: string;
  /** `lines[i]` is the page line of the sample's line `i + 1`. */
  readonly lines: readonly number[];
}

/** The pages whose samples are checked: the root README.md and docs/*.md, in a stable order. */
export function samplePages(): string[] {
  const docs = readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort();
  return ['README.md', ...docs.map((name) => `docs/${name}`)];
}

const FENCE = /^(\s*)(`{3,}|~{3,})\s*([^`\s]*)\s*(.*)$/;

/** Blocks that are not programs: commands, payloads, diagrams, other languages' code shown for comparison. */
const NOT_PROGRAMS = new Set(['sh', 'json', 'http', 'text', 'graphql', 'mermaid', 'php']);
/**
 * Code that this harness cannot run alone, and the test that compiles and runs it instead: no other page may hold
 * such a block, so no program in the docs escapes every test.
 */
export const RUN_ELSEWHERE: Readonly<Record<string, { readonly page: string; readonly test: string }>> = {
  // Code written against a generated client: compiled with it and run against the bookshop.
  typescript: { page: 'docs/typed-client.md', test: 'packages/cli/test/client.test.ts' },
  // The CLI's config module: loaded by the real binary.
  js: { page: 'docs/cli.md', test: 'packages/cli/test/config.test.ts' },
};

/** The samples of one page. */
export function samplesOf(page: string, markdown: string): Sample[] {
  const samples: { fences: number[]; code: string[]; lines: number[] }[] = [];
  const text = markdown.split('\n');
  for (let i = 0; i < text.length; i++) {
    const open = FENCE.exec(text[i]!);
    if (!open) continue;
    const [, indent, marker, language, rest] = open as unknown as [string, string, string, string, string];
    // The block runs to the next fence of the same kind and at least the same length (CommonMark).
    let end = i + 1;
    const close = new RegExp(`^\\s*${marker[0] === '`' ? '`' : '~'}{${marker.length},}\\s*$`);
    while (end < text.length && !close.test(text[end]!)) end++;
    const elsewhere = RUN_ELSEWHERE[language];
    if (language !== 'ts' && !NOT_PROGRAMS.has(language) && elsewhere?.page !== page) {
      throw new Error(
        `${page}:${i + 1}: a \`${language}\` block, which no test runs: write samples as \`ts\` (see docs/README.md#code-samples).`,
      );
    }
    if (language === 'ts') {
      const body = text
        .slice(i + 1, end)
        .map((line) => (line.startsWith(indent) ? line.slice(indent.length) : line.trimStart()));
      const lines = body.map((_, k) => i + 2 + k);
      const previous = samples.at(-1);
      if (GENERATED.test(rest.trim())) {
        // A file of the generated project: checked against the generator's template (`generatedFilesOf`), not run here.
      } else if (rest.trim() === 'continued') {
        if (!previous) throw new Error(`${page}:${i + 1}: a "ts continued" block with no ts block before it.`);
        previous.fences.push(i + 1);
        previous.code.push(...body);
        previous.lines.push(...lines);
      } else if (rest.trim() !== '') {
        throw new Error(
          `${page}:${i + 1}: unknown info string "ts ${rest.trim()}" (a sample is \`ts\`, \`ts continued\` or \`ts generated <path>\`).`,
        );
      } else {
        samples.push({ fences: [i + 1], code: body, lines });
      }
    }
    i = end;
  }
  return samples.map(({ fences, code, lines }) => ({
    name: `${page}:${fences[0]}`,
    page,
    fences,
    code: `${code.join('\n')}\n`,
    lines,
  }));
}

/**
 * `ts generated src/app.ts`: a file of the project `npm create resource-api` writes, shown as the generator writes it.
 * Such a block must equal the template's file (`docs/test/generated-files.test.ts`); the template itself is compiled,
 * started and tested as an installed project (`packages/create-resource-api/test/installed-project.test.ts`).
 */
const GENERATED = /^generated (\S+)$/;

/** A file of the generated project shown in a page: where, which file, and the code shown. */
export interface GeneratedFile {
  readonly name: string;
  readonly path: string;
  readonly code: string;
}

/** The `ts generated <path>` blocks of one page. */
export function generatedFilesOf(page: string, markdown: string): GeneratedFile[] {
  const files: GeneratedFile[] = [];
  const text = markdown.split('\n');
  for (let i = 0; i < text.length; i++) {
    const open = /^```ts generated (\S+)\s*$/.exec(text[i]!);
    if (!open) continue;
    let end = i + 1;
    while (end < text.length && text[end] !== '```') end++;
    files.push({ name: `${page}:${i + 1}`, path: open[1]!, code: `${text.slice(i + 1, end).join('\n')}\n` });
    i = end;
  }
  return files;
}

/** Every sample of every page. */
export function allSamples(): Sample[] {
  return samplePages().flatMap((page) => samplesOf(page, readFileSync(join(root, page), 'utf8')));
}
