/**
 * Questions on the terminal, one line per answer, with node:readline. Lines are read through the interface's async
 * iterator, which keeps the lines that arrive before their question is asked: piped answers (`printf 'Book\n…' |
 * resource-api make:resource`, the tests) are never lost. When the input ends, a question with a default takes it
 * and one without is a usage error (nothing more can be asked).
 */
import { createInterface } from 'node:readline';
import { UsageError } from '../errors.js';

export interface Questions {
  /** The answer, trimmed, or `fallback` for an empty answer (shown when not empty). */
  ask(question: string, fallback?: string): Promise<string>;
  close(): void;
}

export function openQuestions(input: NodeJS.ReadableStream, output: NodeJS.WritableStream, hint: string): Questions {
  const terminal = (input as { isTTY?: boolean }).isTTY === true;
  const lines = createInterface({ input, output, terminal });
  const iterator = lines[Symbol.asyncIterator]();
  let ended = false;
  return {
    async ask(question, fallback) {
      output.write(`${question}${fallback ? ` [${fallback}]` : ''}: `);
      const next = ended ? undefined : await iterator.next();
      if (next === undefined || next.done) {
        ended = true;
        output.write('\n');
        if (fallback === undefined)
          throw new UsageError(`The input ended before this was answered: ${question}.`, hint);
        return fallback;
      }
      // A piped answer is not echoed: end the question's line.
      if (!terminal) output.write('\n');
      return next.value.trim() || (fallback ?? '');
    },
    close: () => lines.close(),
  };
}
