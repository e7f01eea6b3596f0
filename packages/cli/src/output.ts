/** Where a command's document goes: a file (`--out`, folders created) with a line saying so, or stdout. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import type { CommandContext } from './command.js';

export const OUT_OPTION = {
  out: { type: 'string', short: 'o', placeholder: '<file>', description: 'Write to this file instead of stdout.' },
} as const;

/** A path as the user would type it: relative to the working directory when inside it, else absolute. */
export function displayPath(cwd: string, path: string): string {
  const shown = relative(cwd, path);
  return shown === '' ? '.' : shown.startsWith('..') || isAbsolute(shown) ? path : shown;
}

export function writeOutput(context: CommandContext, out: string | undefined, text: string): void {
  if (out === undefined) {
    context.stdout.write(text);
    return;
  }
  const file = resolve(context.cwd, out);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
  context.stdout.write(`Wrote ${displayPath(context.cwd, file)}\n`);
}
