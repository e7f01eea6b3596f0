/**
 * GraphiQL for browsers at `GET /graphql`, served from the package's own `assets/graphiql/` (GraphiQL, React and React
 * DOM, minified, copied there when the package is built: `scripts/copy-ui-assets.mjs`): no CDN, so it works offline
 * too, and no React or GraphiQL package at run time.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from '../errors.js';
import { renderError } from '../response/render-error.js';

/** The folder of the files, the same from `src/graphql/` (tests) and `dist/graphql/` (the package). */
const ASSETS_FOLDER = new URL('../../assets/graphiql/', import.meta.url);

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};

/**
 * The files GraphiQL's page loads (those the build copied), by the name in its URL, with their content type. A Map,
 * not an object literal: a name like `constructor` or `__proto__` must find nothing, not an inherited property.
 */
function listAssets(): Map<string, string> {
  const folder = fileURLToPath(ASSETS_FOLDER);
  if (!existsSync(folder))
    throw new Error(`GraphiQL's files are missing from ${folder}: build the package (scripts/copy-ui-assets.mjs).`);
  return new Map(
    readdirSync(folder)
      .filter((name) => CONTENT_TYPES[extname(name)] !== undefined)
      .map((name) => [name, CONTENT_TYPES[extname(name)]!]),
  );
}

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
  const assets = listAssets();
  const files = new Map<string, Buffer>();
  app.get(`${path}/graphiql/:asset`, async (request, reply) => {
    const name = (request.params as { asset: string }).asset;
    const type = assets.get(name);
    if (!type) {
      // The catalog's 404, as under the API's prefix: this route is outside its error handler.
      const rendered = renderError(
        new ApiError('ROUTE_NOT_FOUND', `No route found for "GET ${request.url.split('?')[0]}".`),
        { accept: request.headers.accept, prefix },
      );
      return reply.code(rendered.status).headers(rendered.headers).send(rendered.body);
    }
    let content = files.get(name);
    if (!content) files.set(name, (content = readFileSync(new URL(name, ASSETS_FOLDER))));
    return reply.header('content-type', type).header('cache-control', 'public, max-age=86400').send(content);
  });
  // A callback hook, not an async one: no promise per request. Answering the page ends the request here (no `done`).
  app.addHook('onRequest', (request, reply, done) => {
    if (isGraphiqlPage(request, path)) reply.header('content-type', 'text/html; charset=utf-8').send(page(path));
    else done();
  });
}
