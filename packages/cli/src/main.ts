/**
 * The `resource-api` command line: picks the command, answers `--help` and `--version`, runs it, and turns the
 * outcome into an exit code: 0 done, 1 failed (one line; the stack with --verbose), 2 the command line is wrong
 * (with a hint, and "did you mean" for a mistyped command).
 */
import { createRequire } from 'node:module';
import { type Command, type CommandContext, columns, commandHelp, parseCommandLine } from './command.js';
import { COMMANDS } from './commands/index.js';
import { didYouMean } from './did-you-mean.js';
import { CliError, EXIT_FAILURE, EXIT_OK, EXIT_USAGE, UsageError } from './errors.js';

const version = (createRequire(import.meta.url)('../package.json') as { version: string }).version;

function generalHelp(): string {
  return [
    'Usage: resource-api <command> [options]',
    '',
    'The command line of resource-api: export the API documents, inspect the resources, keep the database in step,',
    'scaffold resources. Commands read the app from resource-api.config.js (or --config <file>).',
    '',
    'Commands:',
    ...columns(COMMANDS.map((command) => [command.name, command.summary])),
    '',
    'Options:',
    ...columns([
      ['-h, --help', 'Show this help; "resource-api <command> --help" shows a command\'s.'],
      ['--version', 'Print the version.'],
    ]),
    '',
    'Exit codes: 0 done, 1 failed, 2 wrong command line.',
    '',
  ].join('\n');
}

/** Runs the command line `argv` (without `node` and the script); resolves with the exit code. */
export async function main(argv: readonly string[], context: CommandContext): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined) {
    context.stderr.write(generalHelp());
    return EXIT_USAGE;
  }
  if (name === '--help' || name === '-h' || (name === 'help' && rest.length === 0)) {
    context.stdout.write(generalHelp());
    return EXIT_OK;
  }
  if (name === '--version' || name === '-V') {
    context.stdout.write(`${version}\n`);
    return EXIT_OK;
  }
  if (name === 'help') return main([rest[0]!, '--help'], context);
  const command = COMMANDS.find((c) => c.name === name);
  if (!command) {
    const what = name.startsWith('-')
      ? `Unknown option "${name}" before the command.`
      : `Unknown command "${name}".${didYouMean(
          name,
          COMMANDS.map((c) => c.name),
        )}`;
    context.stderr.write(`resource-api: ${what}\nRun "resource-api --help" for the list of commands.\n`);
    return EXIT_USAGE;
  }
  return runCommand(command, rest, context);
}

async function runCommand(command: Command, argv: readonly string[], context: CommandContext): Promise<number> {
  const verbose = argv.includes('--verbose');
  try {
    const { help, input } = parseCommandLine(command, argv);
    if (help) {
      context.stdout.write(commandHelp(command));
      return EXIT_OK;
    }
    await command.run(input, context);
    return EXIT_OK;
  } catch (error) {
    if (error instanceof UsageError) {
      context.stderr.write(`resource-api ${command.name}: ${error.message}\n${error.hint ? `${error.hint}\n` : ''}`);
      return EXIT_USAGE;
    }
    context.stderr.write(`resource-api ${command.name}: ${messageOf(error)}\n`);
    if (verbose) context.stderr.write(`${stackOf(error)}\n`);
    else if (!isExplained(error)) context.stderr.write('Run it again with --verbose for the stack trace.\n');
    return EXIT_FAILURE;
  }
}

/**
 * Errors whose message says all there is to say: the CLI's own, and core's declaration and schema errors (known by
 * name: the core is loaded by the commands that need it, not here).
 */
const isExplained = (error: unknown) =>
  error instanceof CliError ||
  (error instanceof Error && (error.name === 'DeclarationError' || error.name === 'SchemaNotMigratedError'));

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error)) || 'failed.';

/** The stack, with the stacks of the causes under it. */
function stackOf(error: unknown): string {
  const parts: string[] = [];
  for (
    let current = error, depth = 0;
    current !== undefined && depth < 5;
    current = (current as { cause?: unknown }).cause, depth++
  ) {
    parts.push(
      `${depth > 0 ? 'Caused by: ' : ''}${current instanceof Error ? (current.stack ?? current.message) : String(current)}`,
    );
  }
  return parts.join('\n');
}
