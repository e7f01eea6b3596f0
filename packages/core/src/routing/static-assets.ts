/**
 * The browser pages' files (GraphiQL's, Swagger UI's), served from the package's own `assets/<folder>/`, where the
 * build copied them (`scripts/copy-ui-assets.mjs`): no CDN, so the pages work offline, and no UI package at run time.
 * Only the files of the folder are served, by exact name; any other name is the catalog's 404.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../errors.js';
import { renderError } from '../response/render-error.js';

/** The package's `assets/` folder, the same from `src/routing/` (tests) and `dist/routing/` (the package). */
const ASSETS = new URL('../../assets/', import.meta.url);

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.png': 'image/png',
};

/**
 * The files of `assets/<folder>/`, by the name in their URL, with their content type. A Map, not an object literal:
 * a name like `constructor` or `__proto__` must find nothing, not an inherited property.
 */
function listAssets(folder: URL): Map<string, string> {
  const path = fileURLToPath(folder);
  if (!existsSync(path))
    throw new Error(`The UI's files are missing from ${path}: build the package (scripts/copy-ui-assets.mjs).`);
  return new Map(
    readdirSync(path)
      .filter((name) => CONTENT_TYPES[extname(name)] !== undefined)
      .map((name) => [name, CONTENT_TYPES[extname(name)]!]),
  );
}

/**
 * `GET <route>/:asset` answers the files of `assets/<folder>/`, read once and kept; `prefix` is the API's route prefix,
 * whose `contexts/Error` a 404's JSON-LD body names (the route may be outside the API's error handler).
 */
export function registerStaticAssets(
  app: FastifyInstance,
  options: { folder: string; route: string; prefix: string },
): void {
  const folder = new URL(`${options.folder}/`, ASSETS);
  const assets = listAssets(folder);
  const files = new Map<string, Buffer>();
  app.get(`${options.route}/:asset`, async (request, reply) => {
    const name = (request.params as { asset: string }).asset;
    const type = assets.get(name);
    if (!type) {
      const rendered = renderError(
        new ApiError('ROUTE_NOT_FOUND', `No route found for "GET ${request.url.split('?')[0]}".`),
        { accept: request.headers.accept, prefix: options.prefix },
      );
      return reply.code(rendered.status).headers(rendered.headers).send(rendered.body);
    }
    let content = files.get(name);
    if (!content) files.set(name, (content = readFileSync(new URL(name, folder))));
    return reply.header('content-type', type).header('cache-control', 'public, max-age=86400').send(content);
  });
}
