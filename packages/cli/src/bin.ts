#!/usr/bin/env node
/** The `resource-api` binary (scaffold: the commands land in src/commands/). */
process.stderr.write('resource-api: no commands yet\n');
process.exitCode = 1;
