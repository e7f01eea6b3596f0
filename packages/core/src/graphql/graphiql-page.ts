/**
 * GraphiQL for browsers at `GET /graphql`, served from the `graphiql`, `react` and `react-dom` packages installed
 * with the framework: no CDN, so it works offline too.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from '../errors.js';
import { renderError } from '../response/render-error.js';

const require = createRequire(import.meta.url);

/**
 * The files GraphiQL's page loads, by the name in its URL. A Map, not an object literal: a name like `constructor` or
 * `__proto__` must find nothing, not a property inherited from `Object.prototype`.
 */
const ASSETS = new Map<string, { pkg: string; file: string; type: string }>([
  ['react.js', { pkg: 'react', file: 'umd/react.production.min.js', type: 'text/javascript; charset=utf-8' }],
  [
    'react-dom.js',
    { pkg: 'react-dom', file: 'umd/react-dom.production.min.js', type: 'text/javascript; charset=utf-8' },
  ],
  ['graphiql.js', { pkg: 'graphiql', file: 'graphiql.min.js', type: 'text/javascript; charset=utf-8' }],
  ['graphiql.css', { pkg: 'graphiql', file: 'graphiql.min.css', type: 'text/css; charset=utf-8' }],
]);

/** A file of an installed package (its `exports` may not list the file, so resolve the package folder). */
const packageFile = (pkg: string, file: string): string => join(dirname(require.resolve(`${pkg}/package.json`)), file);

const page = (path: string): string => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>GraphiQL</title>
<link rel="stylesheet" href="${path}/graphiql/graphiql.css">
<style>body { margin: 0; height: 100vh; } #graphiql { height: 100vh; }</style>
</head>
<body>
<div id="graphiql">Loading…</div>
<script src="${path}/graphiql/react.js"></script>
<script src="${path}/graphiql/react-dom.js"></script>
<script src="${path}/graphiql/graphiql.js"></script>
<script>
  const fetcher = GraphiQL.createFetcher({ url: ${JSON.stringify(path)} });
  ReactDOM.createRoot(document.getElementById('graphiql')).render(React.createElement(GraphiQL, { fetcher }));
</script>
</body>
</html>`;

/**
 * Whether a request asks for the GraphiQL page: a GET of the endpoint itself (`path`, with or without a query string)
 * from a browser asking for a page, not a query with `?query=`. Asked of every request: the path test comes first.
 */
export function isGraphiqlPage(request: FastifyRequest, path: string): boolean {
  const { url } = request;
  if (!url.startsWith(path) || (url.length > path.length && url[path.length] !== '?') || request.method !== 'GET')
    return false;
  return !url.includes('query=') && /text\/html/.test(request.headers.accept ?? '');
}

/** `prefix`: the API's route prefix, whose `contexts/Error` a 404's JSON-LD body names. */
export function registerGraphiQL(app: FastifyInstance, path: string, prefix: string): void {
  const files = new Map<string, Buffer>();
  app.get(`${path}/graphiql/:asset`, async (request, reply) => {
    const name = (request.params as { asset: string }).asset;
    const asset = ASSETS.get(name);
    if (!asset) {
      // The catalog's 404, as under the API's prefix: this route is outside its error handler.
      const rendered = renderError(
        new ApiError('ROUTE_NOT_FOUND', `No route found for "GET ${request.url.split('?')[0]}".`),
        { accept: request.headers.accept, prefix },
      );
      return reply.code(rendered.status).headers(rendered.headers).send(rendered.body);
    }
    let content = files.get(name);
    if (!content) files.set(name, (content = readFileSync(packageFile(asset.pkg, asset.file))));
    return reply.header('content-type', asset.type).header('cache-control', 'public, max-age=86400').send(content);
  });
  // A callback hook, not an async one: no promise per request. Answering the page ends the request here (no `done`).
  app.addHook('onRequest', (request, reply, done) => {
    if (isGraphiqlPage(request, path)) reply.header('content-type', 'text/html; charset=utf-8').send(page(path));
    else done();
  });
}
