/**
 * Security headers on every response, with @fastify/helmet: `X-Content-Type-Options: nosniff`,
 * `X-Frame-Options: DENY` (and `frame-ancestors 'none'`), no `X-Powered-By`, `Strict-Transport-Security`,
 * `Referrer-Policy: no-referrer` and a Content-Security-Policy that lets the API's own pages run from their local files:
 * Swagger UI at `<prefix>` loads only scripts and styles of the API's origin, so `script-src 'self'` suffices; the
 * GraphiQL page starts with one inline script, allowed on that page only (the page embeds no request data).
 */
import fastifyHelmet, { type FastifyHelmetOptions } from '@fastify/helmet';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { wantsPage } from '../graphql/graphiql-page.js';

/** @fastify/helmet options (https://github.com/fastify/fastify-helmet), merged over the defaults below, key by key. */
export type SecurityHeadersOptions = FastifyHelmetOptions;

/** The defaults: helmet's, with DENY framing, `frame-ancestors 'none'`, and no upgrade of insecure requests. */
export function defaultSecurityHeaders(): SecurityHeadersOptions {
  return {
    frameguard: { action: 'deny' },
    contentSecurityPolicy: {
      directives: {
        'frame-ancestors': ["'none'"],
        // The API is often reached over plain HTTP in development (127.0.0.1); upgrading would break its pages there.
        'upgrade-insecure-requests': null,
      },
    },
  };
}

const isGraphiqlPage = (request: FastifyRequest, path: string): boolean =>
  request.method === 'GET' && request.url.split('?')[0] === path && wantsPage(request.headers.accept, request.url);

export async function registerSecurityHeaders(app: FastifyInstance, options: { headers: SecurityHeadersOptions; graphiqlPath: string | undefined }): Promise<void> {
  // Object.assign, not a spread: TypeScript's spread of two helmet option types exhausts the compiler's memory.
  const merged: SecurityHeadersOptions = Object.assign({}, defaultSecurityHeaders(), options.headers, { global: true });
  await app.register(fastifyHelmet, merged);

  // The policy stays one static string for every response (helmet computes it once); only the GraphiQL page, when
  // the policy is ours, gets it with its inline script allowed. This hook runs after helmet's, before the page is sent.
  const { graphiqlPath } = options;
  if (graphiqlPath === undefined || options.headers.contentSecurityPolicy !== undefined) return;
  app.addHook('onRequest', (request, reply, done) => {
    if (isGraphiqlPage(request, graphiqlPath)) {
      const policy = reply.raw.getHeader('content-security-policy');
      if (typeof policy === 'string') reply.header('content-security-policy', policy.replace("script-src 'self'", "script-src 'self' 'unsafe-inline'"));
    }
    done();
  });
}
