#!/usr/bin/env node
/** The `resource-api` binary: `main` on the process's arguments and streams; its result is the exit code. */
import { main } from './main.js';

// A reader that stops early (`resource-api openapi:export | head`) is no failure: stop writing, quietly.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
  process.exit(process.exitCode ?? 0);
});

process.exitCode = await main(process.argv.slice(2), {
  cwd: process.cwd(),
  env: process.env,
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
});
