/**
 * Decides once per run whether the PostgreSQL and MariaDB parts of the suite run. Locally, an unreachable server is
 * skipped with a loud notice; in CI (`CI=true`) it fails the run, never a silent skip. Also copies GraphiQL's files into
 * packages/core/assets/ (as the build does), which the GraphiQL page serves.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import mysql from 'mysql2/promise';
import pg from 'pg';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    postgresUrl: string;
    mariadbUrl: string;
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
    console.log(`PostgreSQL: ${url.replace(/\/\/[^@]*@/, '//')} answers; every persistence test runs on it.`);
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
    console.warn(`\n*** PostgreSQL is unreachable at ${url}: the PostgreSQL part of the suite is SKIPPED. ***\n`);
  }
  await provideMariadb(project);
}

/** The same for MariaDB (or MySQL), at `TEST_MARIADB_URL`. */
async function provideMariadb(project: TestProject): Promise<void> {
  const url = process.env.TEST_MARIADB_URL ?? 'mysql://root@127.0.0.1:3306/test';
  try {
    const connection = await mysql.createConnection({ uri: url, connectTimeout: 3000 });
    await connection.query('SELECT 1');
    await connection.end();
    project.provide('mariadbUrl', url);
    console.log(`MariaDB: ${url.replace(/\/\/[^@]*@/, '//')} answers; every persistence test runs on it.`);
  } catch (error) {
    if (process.env.CI === 'true') {
      throw new Error(
        `MariaDB is unreachable at ${url} and CI=true: the MariaDB part of the suite must run. (${String(error)})`,
      );
    }
    project.provide('mariadbUrl', '');
    process.env.RESOURCE_API_MARIADB_SKIPPED = url;
    console.warn(`\n*** MariaDB is unreachable at ${url}: the MariaDB part of the suite is SKIPPED. ***\n`);
  }
}
