/**
 * Decides once per run whether the PostgreSQL half of the suite runs. Locally, an unreachable PostgreSQL is skipped
 * with a loud notice; in CI (`CI=true`) it fails the run, never a silent skip. Also copies GraphiQL's files into
 * packages/core/assets/ (as the build does), which the GraphiQL page serves.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    postgresUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<void> {
  execFileSync(process.execPath, [fileURLToPath(new URL('../scripts/copy-ui-assets.mjs', import.meta.url))]);
  const url = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    await client.end();
    project.provide('postgresUrl', url);
    console.log(
      `PostgreSQL: ${url.replace(/\/\/[^@]*@/, '//')} answers; every persistence test runs on SQLite and PostgreSQL.`,
    );
  } catch (error) {
    await client.end().catch(() => {});
    if (process.env.CI === 'true') {
      throw new Error(
        `PostgreSQL is unreachable at ${url} and CI=true: the PostgreSQL half of the suite must run. (${String(error)})`,
      );
    }
    project.provide('postgresUrl', '');
    // Read by the summary reporter (same process), to repeat the notice under the results.
    process.env.RESOURCE_API_POSTGRES_SKIPPED = url;
    console.warn(
      `\n*** PostgreSQL is unreachable at ${url}: the PostgreSQL half of the suite is SKIPPED (only SQLite runs). ***\n`,
    );
  }
}
