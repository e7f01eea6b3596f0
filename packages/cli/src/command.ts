/**
 * What a command is: its name, its help (summary, arguments, options, examples) and its `run`. The command line of
 * each command is parsed here with Node's `util.parseArgs` (strict: an unknown option is a usage error with a
 * "did you mean"), and `--help` is answered here from the same description, so help and parsing never disagree.
 * Command modules load the core (a second or so) inside `run`, with `import()`: help and usage errors answer at once.
 */
import { parseArgs } from 'node:util';
import { didYouMean } from './did-you-mean.js';
import { UsageError } from './errors.js';

export interface OptionSpec {
  readonly type: 'string' | 'boolean';
  readonly short?: string;
  readonly multiple?: boolean;
  /** The value's name in the help (`<file>`). */
  readonly placeholder?: string;
  readonly description: string;
}

export type OptionSpecs = Readonly<Record<string, OptionSpec>>;

/** The parsed values of `O`: a string or a boolean, or lists of them for `multiple` options. */
export type OptionValues<O extends OptionSpecs> = {
  readonly [K in keyof O]?: O[K]['type'] extends 'string'
    ? O[K]['multiple'] extends true
      ? string[]
      : string
    : O[K]['multiple'] extends true
      ? boolean[]
      : boolean;
};

export interface ArgumentSpec {
  readonly name: string;
  readonly description: string;
  readonly required?: boolean;
}

/** Where a command reads and writes: the process's streams and environment, or a test's. */
export interface CommandContext {
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  readonly stdin: NodeJS.ReadableStream;
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
}

export interface CommandInput<O extends OptionSpecs> {
  readonly options: OptionValues<O>;
  /** The positional arguments, as many as `arguments` declares (checked before `run`). */
  readonly args: readonly string[];
  /** `--verbose`: say more (the database driver's warnings; the stack of a failure). */
  readonly verbose: boolean;
}

export interface Command<O extends OptionSpecs = OptionSpecs> {
  readonly name: string;
  /** One line, for the list of commands. */
  readonly summary: string;
  /** A paragraph or two for `--help`. */
  readonly description: string;
  readonly arguments?: readonly ArgumentSpec[];
  readonly options: O;
  readonly examples: readonly string[];
  run(input: CommandInput<O>, context: CommandContext): Promise<void>;
}

/** Options every command takes. */
export const COMMON_OPTIONS = {
  help: { type: 'boolean', short: 'h', description: 'Show this help.' },
  verbose: { type: 'boolean', description: "Say more: the stack trace of a failure, the database driver's warnings." },
} as const satisfies OptionSpecs;

/** Types a command (its options give the types of `run`'s input). */
export const defineCommand = <const O extends OptionSpecs>(command: Command<O>): Command<O> => command;

/** The parsed command line of a command; `help` is true when `--help` was given (nothing else is checked then). */
export function parseCommandLine(
  command: Command,
  argv: readonly string[],
): { help: boolean; input: CommandInput<OptionSpecs> } {
  const options = { ...command.options, ...COMMON_OPTIONS };
  const hint = `Run "resource-api ${command.name} --help" for its options.`;
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args: [...argv], options, allowPositionals: true, strict: true });
  } catch (error) {
    throw usageErrorOf(error as Error & { code?: string }, Object.keys(options), hint);
  }
  const values = parsed.values as OptionValues<OptionSpecs>;
  const verbose = values.verbose === true;
  if (values.help === true) return { help: true, input: { options: values, args: parsed.positionals, verbose } };
  const declared = command.arguments ?? [];
  const missing = declared.find((argument, index) => argument.required && parsed.positionals[index] === undefined);
  if (missing) throw new UsageError(`Missing argument <${missing.name}>: ${missing.description}`, hint);
  if (parsed.positionals.length > declared.length) {
    const extra = parsed.positionals
      .slice(declared.length)
      .map((p) => `"${p}"`)
      .join(', ');
    throw new UsageError(
      `Unexpected argument${parsed.positionals.length - declared.length > 1 ? 's' : ''} ${extra}.`,
      hint,
    );
  }
  return { help: false, input: { options: values, args: parsed.positionals, verbose } };
}

/** parseArgs' errors, reworded: the option at fault and, for an unknown one, the closest known one. */
function usageErrorOf(error: Error & { code?: string }, known: readonly string[], hint: string): Error {
  if (!error.code?.startsWith('ERR_PARSE_ARGS')) return error;
  const unknown = /Unknown option '(-{1,2}[^']*)'/.exec(error.message)?.[1];
  if (unknown)
    return new UsageError(
      `Unknown option "${unknown}".${didYouMean(unknown.replace(/^-+/, ''), known, (name) => `--${name}`)}`,
      hint,
    );
  // "Option '--out <value>' argument missing", "Option '--json' does not take an argument".
  return new UsageError(error.message.split('\n')[0]!.replace(/'/g, '"'), hint);
}

/** The `--help` text of a command. */
export function commandHelp(command: Command): string {
  const args = (command.arguments ?? []).map((a) => (a.required ? `<${a.name}>` : `[${a.name}]`));
  const lines = [
    `Usage: resource-api ${[command.name, ...args, '[options]'].join(' ')}`,
    '',
    command.summary,
    '',
    command.description.trim(),
    '',
  ];
  if (args.length > 0) {
    lines.push('Arguments:');
    lines.push(...columns((command.arguments ?? []).map((a) => [a.name, a.description])), '');
  }
  lines.push('Options:');
  const options = { ...command.options, ...COMMON_OPTIONS } as OptionSpecs;
  lines.push(
    ...columns(
      Object.entries(options).map(([name, spec]) => {
        const flag = `${spec.short ? `-${spec.short}, ` : '    '}--${name}${spec.type === 'string' ? ` ${spec.placeholder ?? '<value>'}` : ''}`;
        return [flag, `${spec.description}${spec.multiple ? ' Repeatable.' : ''}`];
      }),
    ),
  );
  if (command.examples.length > 0) lines.push('', 'Examples:', ...command.examples.map((example) => `  ${example}`));
  return `${lines.join('\n')}\n`;
}

/** Two columns, the first padded to its widest cell. */
export function columns(rows: readonly (readonly [string, string])[]): string[] {
  const width = Math.max(...rows.map(([left]) => left.length));
  return rows.map(([left, right]) => `  ${left.padEnd(width)}  ${right}`);
}
