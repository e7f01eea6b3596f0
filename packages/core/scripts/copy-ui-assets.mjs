#!/usr/bin/env node
// Copies the files of GraphiQL's page (GraphiQL, React and React DOM, minified) from the development dependencies into
// assets/graphiql/, which the package ships: at run time the GraphiQL page is served from those files, and neither
// graphiql nor react is a dependency of the package (issue 36). Run by the build, by `prepack`, and by the test
// suite's setup when the folder is missing; a file already there with the same size is left alone.
import { copyFileSync, existsSync, mkdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const target = fileURLToPath(new URL('../assets/graphiql/', import.meta.url));

/** The name served (the page's URL) → the package and its file. */
export const GRAPHIQL_FILES = {
  'react.js': ['react', 'umd/react.production.min.js'],
  'react-dom.js': ['react-dom', 'umd/react-dom.production.min.js'],
  'graphiql.js': ['graphiql', 'graphiql.min.js'],
  'graphiql.css': ['graphiql', 'graphiql.min.css'],
};

mkdirSync(target, { recursive: true });
for (const [name, [pkg, file]] of Object.entries(GRAPHIQL_FILES)) {
  const source = join(dirname(require.resolve(`${pkg}/package.json`)), file);
  const destination = join(target, name);
  if (existsSync(destination) && statSync(destination).size === statSync(source).size) continue;
  copyFileSync(source, destination);
}
