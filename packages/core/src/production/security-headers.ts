/**
 * Security headers on every response, with @fastify/helmet: `X-Content-Type-Options: nosniff`,
 * `X-Frame-Options: DENY` (and `frame-ancestors 'none'`), no `X-Powered-By`, `Strict-Transport-Security`,
 * `Referrer-Policy: no-referrer` and a Content-Security-Policy that lets the API's own pages run from their local files:
 * Swagger UI at `<prefix>` loads only scripts and styles of the API's origin, so `script-src 'self'` suffices; the
 * GraphiQL page starts with one inline script, allowed on that page only (the page embeds no request data).
 */
import fastifyHelmet, { type FastifyHelmetOptions } from '@fastify/helmet';
import type { FastifyInstance } from 'fastify';
import type { IncomingMessage } from 'node:http';
import { wantsPage } from '../graphql/graphiql-page.js';

/** @fastify/helmet options (https://github.com/fastify/fastify-helmet), merged over the defaults below, key by key. */
export type SecurityHeadersOptions = FastifyHelmetOptions;

/** `script-src`: the API's origin, and the GraphiQL page's inline start-up script on that page only. */
function scriptSources(graphiqlPath: string | undefined) {
  return (request: IncomingMessage): string => {
    const url = request.url ?? '';
    const isGraphiql = graphiqlPath !== undefined && request.method === 'GET' && url.split('?')[0] === graphiqlPath && wantsPage(request.headers.accept, url);
    return isGraphiql ? "'self' 'unsafe-inline'" : "'self'";
  };
}

/** The defaults: helmet's, with DENY framing and the script sources above. */
export function defaultSecurityHeaders(graphiqlPath: string | undefined): SecurityHeadersOptions {
  return {
    frameguard: { action: 'deny' },
    contentSecurityPolicy: {
      directives: {
        'script-src': [scriptSources(graphiqlPath)],
        'frame-ancestors': ["'none'"],
        // The API is often reached over plain HTTP in development (127.0.0.1); upgrading would break its pages there.
        'upgrade-insecure-requests': null,
      },
    },
  };
}

export async function registerSecurityHeaders(app: FastifyInstance, options: { headers: SecurityHeadersOptions; graphiqlPath: string | undefined }): Promise<void> {
  // Object.assign, not a spread: TypeScript's spread of two helmet option types exhausts the compiler's memory.
  const merged: SecurityHeadersOptions = Object.assign({}, defaultSecurityHeaders(options.graphiqlPath), options.headers, { global: true });
  await app.register(fastifyHelmet, merged);
}
