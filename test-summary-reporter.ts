/**
 * Prints the plain closing line `N passed, N failed, N skipped` after the run, which CI tools read regardless of the
 * test runner. Vitest's own report stays as it is.
 */
import type { Reporter, TestModule } from 'vitest/node';

export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const counts = { passed: 0, failed: 0, skipped: 0 };
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') counts.passed++;
        else if (state === 'failed') counts.failed++;
        else counts.skipped++;
      }
    }
    const skippedPostgres = process.env.RESOURCE_API_POSTGRES_SKIPPED;
    if (skippedPostgres)
      process.stdout.write(
        `\n*** PostgreSQL was SKIPPED (unreachable at ${skippedPostgres}): its part of the suite did not run. ***\n`,
      );
    const skippedMariadb = process.env.RESOURCE_API_MARIADB_SKIPPED;
    if (skippedMariadb)
      process.stdout.write(
        `\n*** MariaDB was SKIPPED (unreachable at ${skippedMariadb}): its part of the suite did not run. ***\n`,
      );
    process.stdout.write(`\n${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped\n`);
  }
}
