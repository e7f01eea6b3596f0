/**
 * The command line itself, through the compiled binary: help for the whole tool and for every command (exit 0), the
 * version, and usage errors (exit 2 with a hint): no command, an unknown command or option (with "did you mean"), a
 * missing or extra argument, a bad option value.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureCliBuilt, root, runCli } from './support/cli.js';

const COMMANDS = [
  'debug:resources',
  'openapi:export',
  'graphql:export',
  'client:generate',
  'db:sync',
  'migrations:generate',
  'migrations:run',
  'migrations:rollback',
  'make:resource',
];

beforeAll(async () => {
  await ensureCliBuilt();
}, 200_000);

describe('help', () => {
  it('--help lists every command with its summary, exit 0', async () => {
    const run = await runCli(['--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^Usage: resource-api <command> \[options\]/);
    for (const command of COMMANDS) expect(run.stdout).toMatch(new RegExp(`^  ${command} +\\S`, 'm'));
    expect(run.stderr).toBe('');
  });

  it.each(COMMANDS)('%s --help: usage, options and examples, exit 0', async (command) => {
    const run = await runCli([command, '--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`Usage: resource-api ${command}`);
    expect(run.stdout).toContain('Options:');
    expect(run.stdout).toMatch(/-h, --help +Show this help\./);
    expect(run.stdout).toContain(`Examples:\n  resource-api ${command}`);
    expect(run.stderr).toBe('');
  });

  it('"help <command>" is "<command> --help"', async () => {
    const [help, flag] = await Promise.all([runCli(['help', 'db:sync']), runCli(['db:sync', '-h'])]);
    expect(help).toEqual({ code: 0, stdout: flag.stdout, stderr: '' });
  });

  it('--version prints the package version', async () => {
    const { version } = JSON.parse(readFileSync(join(root, 'packages/cli/package.json'), 'utf8')) as {
      version: string;
    };
    expect(await runCli(['--version'])).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
  });
});

describe('usage errors exit 2 with a hint', () => {
  it('no command: the help on stderr', async () => {
    const run = await runCli([]);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('Usage: resource-api <command> [options]');
  });

  it('an unknown command, with the closest one', async () => {
    const run = await runCli(['migration:run']);
    expect(run).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'resource-api: Unknown command "migration:run". Did you mean "migrations:run"?\nRun "resource-api --help" for the list of commands.\n',
    });
    const far = await runCli(['deploy']);
    expect(far.code).toBe(2);
    expect(far.stderr).toContain('Unknown command "deploy".\n');
  });

  it('an unknown option, with the closest one', async () => {
    const run = await runCli(['openapi:export', '--fromat', 'yaml']);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      'resource-api openapi:export: Unknown option "--fromat". Did you mean "--format"?\nRun "resource-api openapi:export --help" for its options.\n',
    );
  });

  it('an option without its value, an extra argument, a bad value', async () => {
    const missing = await runCli(['openapi:export', '--out']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^resource-api openapi:export: Option "-o, --out <value>" argument missing/);
    const extra = await runCli(['graphql:export', 'schema.graphql']);
    expect(extra.code).toBe(2);
    expect(extra.stderr).toContain('Unexpected argument "schema.graphql".');
    const format = await runCli(['openapi:export', '--format', 'xml']);
    expect(format.code).toBe(2);
    expect(format.stderr).toContain('Unknown format "xml": use json or yaml.');
  });
});

describe('failures exit 1 with one line', () => {
  it('no config file in the working directory', async () => {
    const run = await runCli(['debug:resources'], { cwd: root });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      `resource-api debug:resources: No config file: create resource-api.config.js in ${root.replace(/\/$/, '')} (it default-exports { resources, ... }), or pass --config <file>.\n`,
    );
  });

  it('a config file that does not exist', async () => {
    const run = await runCli(['graphql:export', '--config', 'nowhere.config.js']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /^resource-api graphql:export: The config file \/.*\/nowhere\.config\.js does not exist\.\n$/,
    );
  });
});
