/**
 * The HTML page of Swagger UI served at `GET /api` for browsers. Its assets are @fastify/swagger-ui's own files
 * (the swagger-ui-dist bundle, served locally under `<prefix>/docs/ui/static/`, never from a CDN), and so is its
 * initializer script, which carries the OpenAPI document inline (as API Platform's page does).
 */

const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** The page; `assets` is the URL path of @fastify/swagger-ui's routes (`/api/docs/ui`). */
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
