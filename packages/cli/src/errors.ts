/**
 * The two ways a command fails, told apart by their exit codes: a usage error (the command line itself is wrong:
 * unknown command or option, a missing argument) exits 2 with a hint; anything else exits 1 with one line.
 */

/** The command line is wrong: exit code 2. `hint` is printed under the message (`Run "resource-api x --help".`). */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly hint?: string,
  ) {
    super(message);
    this.name = 'UsageError';
  }
}

/** A failure the user can act on, with a message that says what to do (no stack trace needed): exit code 1. */
export class CliError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'CliError';
  }
}

export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;
