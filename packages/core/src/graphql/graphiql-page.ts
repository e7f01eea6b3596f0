/**
 * GraphiQL for browsers at `GET /graphql`, served from the package's own `assets/graphiql/` (GraphiQL, React and React
 * DOM, minified, copied there when the package is built: `scripts/copy-ui-assets.mjs`): no CDN, so it works offline
 * too, and no React or GraphiQL package at run time.
 */
import { readFileSync } from 'node:fs';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from '../errors.js';
import { renderError } from '../response/render-error.js';

/** The folder of the files, the same from `src/graphql/` (tests) and `dist/graphql/` (the package). */
const ASSETS_FOLDER = new URL('../../assets/graphiql/', import.meta.url);

/**
 * The files GraphiQL's page loads, by the name in its URL, with their content type. A Map, not an object literal: a
 * name like `constructor` or `__proto__` must find nothing, not a property inherited from `Object.prototype`.
 */
const ASSETS = new Map<string, string>([
  ['react.js', 'text/javascript; charset=utf-8'],
  ['react-dom.js', 'text/javascript; charset=utf-8'],
  ['graphiql.js', 'text/javascript; charset=utf-8'],
  ['graphiql.css', 'text/css; charset=utf-8'],
]);

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
    const type = ASSETS.get(name);
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
