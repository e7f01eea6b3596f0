import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const path = (relative: string) => fileURLToPath(new URL(relative, import.meta.url));
// graphql-js ships CommonJS and an ES module build; Node (and mercurius) load the CommonJS one, Vite would pick the
// other, and graphql-js refuses a schema "from another module or realm". Tests load the one Node loads.
const graphqlMain = createRequire(path('./packages/core/package.json')).resolve('graphql');

export default defineConfig({
  resolve: {
    // Tests run against the sources, not a build.
    alias: [
      { find: /^@resource-api\/core\/testing$/, replacement: path('./packages/core/src/testing/index.ts') },
      { find: /^@resource-api\/core$/, replacement: path('./packages/core/src/index.ts') },
      { find: /^graphql$/, replacement: graphqlMain },
    ],
  },
  test: {
    include: [
      'packages/*/src/**/*.test.ts',
      'packages/*/test/**/*.test.ts',
      'examples/*/test/**/*.test.ts',
      'docs/test/**/*.test.ts',
      'bench/test/**/*.test.ts',
    ],
    globalSetup: ['./packages/core/test/global-setup.ts'],
    reporters: ['default', './test-summary-reporter.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
