/**
 * GraphiQL for browsers at `GET /graphql`, its files served from the package's own `assets/graphiql/` (GraphiQL, React
 * and React DOM, minified, copied there when the package is built: `routing/static-assets.ts`): no CDN, so it works
 * offline too, and no React or GraphiQL package at run time.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { registerStaticAssets } from '../routing/static-assets.js';

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
  registerStaticAssets(app, { folder: 'graphiql', route: `${path}/graphiql`, prefix });
  // A callback hook, not an async one: no promise per request. Answering the page ends the request here (no `done`).
  app.addHook('onRequest', (request, reply, done) => {
    if (isGraphiqlPage(request, path)) reply.header('content-type', 'text/html; charset=utf-8').send(page(path));
    else done();
  });
}
