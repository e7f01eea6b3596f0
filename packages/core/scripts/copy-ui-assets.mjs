#!/usr/bin/env node
// Copies the files of the browser pages from the development dependencies into assets/, which the package ships: at
// run time GraphiQL's page (GraphiQL, React and React DOM, minified) and Swagger UI's (the swagger-ui-dist bundle as
// @fastify/swagger-ui carries it) are served from those files (`src/routing/static-assets.ts`), and none of graphiql,
// react or @fastify/swagger-ui is a dependency of the package (issue 36). Run by the build, by `prepack`, and by the
// test suite's setup when a folder is missing; a file already there with the same size is left alone.
import { copyFileSync, existsSync, mkdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);

/** The folder of assets/ → the name served (the page's URL) → the package and its file. */
export const UI_FILES = {
  graphiql: {
    'react.js': ['react', 'umd/react.production.min.js'],
    'react-dom.js': ['react-dom', 'umd/react-dom.production.min.js'],
    'graphiql.js': ['graphiql', 'graphiql.min.js'],
    'graphiql.css': ['graphiql', 'graphiql.min.css'],
  },
  'swagger-ui': Object.fromEntries(
    [
      'swagger-ui-bundle.js',
      'swagger-ui-standalone-preset.js',
      'swagger-ui.css',
      'index.css',
      'favicon-16x16.png',
      'favicon-32x32.png',
    ].map((name) => [name, ['@fastify/swagger-ui', `static/${name}`]]),
  ),
};

for (const [folder, files] of Object.entries(UI_FILES)) {
  const target = fileURLToPath(new URL(`../assets/${folder}/`, import.meta.url));
  mkdirSync(target, { recursive: true });
  for (const [name, [pkg, file]] of Object.entries(files)) {
    const source = join(dirname(require.resolve(`${pkg}/package.json`)), file);
    const destination = join(target, name);
    if (existsSync(destination) && statSync(destination).size === statSync(source).size) continue;
    copyFileSync(source, destination);
  }
}
