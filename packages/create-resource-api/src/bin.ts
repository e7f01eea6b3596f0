/** `create-resource-api [directory]` (what `npm create resource-api@latest my-api` runs): writes the project. */
import { relative } from 'node:path';
import { createProject, ProjectError } from './index.js';

const [directory = 'my-api', ...rest] = process.argv.slice(2);
if (rest.length > 0 || directory.startsWith('-')) {
  console.error('Usage: npm create resource-api@latest [directory]   (default directory: my-api)');
  process.exit(2);
}
try {
  const created = createProject({ directory });
  const shown = relative(process.cwd(), created) || '.';
  console.log(`Created a resource-api project in ${shown}. Next:

  cd ${shown}
  npm install
  npm run dev      # the API on http://127.0.0.1:8000/api, restarted on every change
  npm test         # the test of src/resources/book.ts, over HTTP
`);
} catch (error) {
  if (!(error instanceof ProjectError)) throw error;
  console.error(error.message);
  process.exit(1);
}
