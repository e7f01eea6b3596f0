/**
 * The soak test (docs/reliability.md): `pnpm --filter bookshop soak`. Starts the compiled bookshop on a fresh
 * PostgreSQL schema, runs the clients of `clients.ts` for the duration, restarts PostgreSQL once in the middle, then
 * checks the answers, the database against the ledger of acknowledged writes, the process and its memory, prints
 * the summary (also written as JSON beside the server log) and exits 1 when a check failed. Not part of `pnpm test`:
 * the restart would break the tests running beside it.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openDatabase } from '@resource-api/core';
import { type LoadContext, type ProbeRecord, runClient, runProbes } from './clients.js';
import { Ledger } from './ledger.js';
import { parseOptions, type SoakOptions } from './options.js';
import { restartPostgres } from './postgres.js';
import { summarize } from './report.js';
import { createSchema, dropSchema, runMigrations, startServer, varDirectory } from './server.js';

async function readRows(url: string) {
  const database = await openDatabase({ url });
  try {
    const books = await database.knex('book').select('id', 'title', 'author_id');
    const authors = await database.knex('author').select('id', 'name');
    return { books, authors };
  } finally {
    await database.close();
  }
}

async function soak(options: SoakOptions): Promise<boolean> {
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const { schema, url } = await createSchema(options.databaseUrl);
  console.log(`Schema ${schema}: running the migrations, starting the server…`);
  try {
    await runMigrations(url);
    const server = await startServer(url, stamp);
    const origin = performance.now();
    const context: LoadContext = {
      base: server.base,
      ledger: new Ledger(),
      records: [],
      origin,
      deadline: origin + options.duration * 1000,
      interval: options.rate > 0 ? (options.clients / options.rate) * 1000 : 0,
      hangAfter: options.hangAfter,
      surprises: [],
      staleReads: [],
    };
    console.log(
      `Load for ${options.duration} s on ${server.base}${options.restartAt === undefined ? '' : `, PostgreSQL restarted at ${options.restartAt} s`}…`,
    );
    const probes: ProbeRecord[] = [];
    const [restart] = await Promise.all([
      options.restartAt === undefined
        ? undefined
        : restartPostgres({
            url: options.databaseUrl,
            cluster: options.cluster,
            origin,
            at: options.restartAt * 1000,
            downFor: options.downFor,
          }),
      runProbes(context, probes),
      ...Array.from({ length: options.clients }, (_, index) => runClient(context, index + 1)),
    ]);
    const durationMs = performance.now() - origin;
    const aliveAtEnd = server.alive();
    const verification = context.ledger.verify(await readRows(url));
    const exitCode = await server.stop(15_000);
    const { errors, other } = server.errorLines();
    const summary = summarize({
      durationMs,
      clients: options.clients,
      rate: options.rate,
      hangAfter: options.hangAfter,
      maxRssMb: options.maxRssMb,
      records: context.records,
      probes,
      restart,
      verification,
      surprises: context.surprises,
      staleReads: context.staleReads,
      rss: server.rss,
      aliveAtEnd,
      exitCode,
      serverErrors: errors,
      serverOther: other,
      logFile: server.logFile,
    });
    console.log(`\n${summary.text}`);
    const jsonFile = join(varDirectory, `soak-${stamp}.json`);
    writeFileSync(
      jsonFile,
      JSON.stringify(
        { options, figures: summary.figures, checks: summary.checks, surprises: context.surprises.slice(0, 50) },
        null,
        2,
      ),
    );
    console.log(`\nFigures: ${jsonFile}`);
    return summary.checks.every((check) => check.ok);
  } finally {
    if (!options.keepSchema)
      await dropSchema(options.databaseUrl, schema).catch((error: unknown) =>
        console.error(`Could not drop schema ${schema}:`, error),
      );
  }
}

try {
  const options = parseOptions(process.argv.slice(2));
  if (options) {
    const ok = await soak(options);
    console.log(ok ? '\nSoak passed.' : '\nSoak FAILED.');
    process.exitCode = ok ? 0 : 1;
  }
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 2;
}
