/**
 * The HTML page of Swagger UI served at `GET /api` for browsers, and its initializer script. The page's assets are the
 * package's own files (the swagger-ui-dist bundle, copied from @fastify/swagger-ui when the package is built, served
 * locally under `<prefix>/docs/ui/static/`, never from a CDN); the initializer carries the OpenAPI document inline (as
 * API Platform's page does), so the page needs no other request to show it.
 */

const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** The page; `assets` is the URL path under which `static/` holds its files (`/api/docs/ui`). */
export function renderSwaggerUiPage(options: { title: string; assets: string }): string {
  const base = `${options.assets}/static`;
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<title>${escapeHtml(options.title)}</title>
<link rel="stylesheet" type="text/css" href="${base}/swagger-ui.css">
<link rel="stylesheet" type="text/css" href="${base}/index.css">
<link rel="icon" type="image/png" href="${base}/favicon-32x32.png" sizes="32x32">
<link rel="icon" type="image/png" href="${base}/favicon-16x16.png" sizes="16x16">
</head>
<body>
<div id="swagger-ui"></div>
<script src="${base}/swagger-ui-bundle.js" charset="UTF-8"></script>
<script src="${base}/swagger-ui-standalone-preset.js" charset="UTF-8"></script>
<script src="${base}/swagger-initializer.js" charset="UTF-8"></script>
</body>
</html>
`;
}

/**
 * The script that starts Swagger UI on the page with `document` inline. A script file, not an inline script: the
 * security headers' policy allows scripts of the API's own origin only. JSON is valid JavaScript (since ES2019 with
 * U+2028 and U+2029 too), so the document goes in as `JSON.stringify` writes it.
 */
export function renderSwaggerUiInitializer(document: unknown): string {
  const config = { spec: document, layout: 'BaseLayout', displayOperationId: true, validatorUrl: null };
  return `window.onload = function () {
  window.ui = SwaggerUIBundle(Object.assign(${JSON.stringify(config)}, {
    dom_id: '#swagger-ui',
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    plugins: [SwaggerUIBundle.plugins.DownloadUrl],
  }));
};
`;
}
