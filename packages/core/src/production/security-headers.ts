/**
 * Security headers on every response, as helmet sets them: `X-Content-Type-Options: nosniff`,
 * `X-Frame-Options: DENY` (and `frame-ancestors 'none'`), `Strict-Transport-Security`, `Referrer-Policy: no-referrer`,
 * `Cross-Origin-Resource-Policy: same-origin` and a Content-Security-Policy. Fastify sends no `X-Powered-By`.
 *
 * Two sets, chosen per request by what it accepts. A request that accepts HTML (a browser's navigation: the only way
 * to Swagger UI and the GraphiQL page, which are answered to `text/html` alone) gets the page set: a policy that lets
 * the API's own pages run from their local files (Swagger UI loads only scripts and styles of the API's origin, so
 * `script-src 'self'` suffices; the GraphiQL page starts with one inline script, allowed on that page only) and
 * `Cross-Origin-Opener-Policy`. Any other request (an API client's: JSON-LD, JSON, a script or style file of a page)
 * gets the API set, as OWASP's REST cheat sheet has it: the policy `default-src 'none'; frame-ancestors 'none'` (a
 * JSON document loads nothing and is framed nowhere) and no opener policy (it applies to documents only). The
 * protection is the same or stricter; the head of an API response is 224 bytes smaller, which a small `GET`
 * pays for on both ends of the connection (docs/performance.md). A policy or an opener policy of the application's
 * own (`securityHeaders`) is sent on every response.
 *
 * helmet's headers depend on its options, not on the request: they are computed once, at start, by running helmet's
 * middleware against a recorder, and each response gets one of the prepared sets (per request, helmet rebuilt the
 * policy string and set a dozen headers one by one, a visible part of a small GET's CPU: docs/performance.md). A
 * policy with a directive computed per request (a function, for nonces) keeps helmet running on every request.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { onRequestHookHandler } from 'fastify';
import helmet, { type HelmetOptions } from 'helmet';
import { isGraphiqlPage } from '../graphql/graphiql-page.js';

/** helmet's options (https://helmetjs.github.io), merged over the plugin's defaults key by key (docs/production.md). */
export type SecurityHeadersOptions = Readonly<HelmetOptions>;

/**
 * The defaults: helmet's, with DENY framing, `frame-ancestors 'none'`, no upgrade of insecure requests, and without
 * the five headers that protect nothing an API serves today: `X-XSS-Protection: 0` (the filter it turns off is gone
 * from every browser), `X-Download-Options` (Internet Explorer 8), `X-Permitted-Cross-Domain-Policies` (Flash and
 * Acrobat), and `X-DNS-Prefetch-Control` and `Origin-Agent-Cluster` (hints to browsers rendering HTML). Each header is
 * work on every response (docs/performance.md); an application that wants one back turns it on in `securityHeaders`.
 */
export function createDefaultSecurityHeaders(): HelmetOptions {
  return {
    frameguard: { action: 'deny' },
    xXssProtection: false,
    xDownloadOptions: false,
    xPermittedCrossDomainPolicies: false,
    xDnsPrefetchControl: false,
    originAgentCluster: false,
    contentSecurityPolicy: {
      directives: {
        'frame-ancestors': ["'none'"],
        // The API is often reached over plain HTTP in development (127.0.0.1); upgrading would break its pages there.
        'upgrade-insecure-requests': null,
      },
    },
  };
}

/** Whether a CSP directive is computed per request (helmet calls functions with the request and response). */
function hasDynamicDirective(options: HelmetOptions): boolean {
  const csp = options.contentSecurityPolicy;
  if (!csp || csp === true) return false;
  return Object.values(csp.directives ?? {}).some(
    (value) => typeof value === 'function' || (Array.isArray(value) && value.some((v) => typeof v === 'function')),
  );
}

/** The headers helmet's middleware sets with these options, recorded once. */
function recordHeaders(middleware: ReturnType<typeof helmet>): Record<string, string> {
  const headers: Record<string, string> = {};
  const recorder = {
    setHeader: (name: string, value: unknown) => void (headers[name.toLowerCase()] = String(value)),
    removeHeader: (name: string) => void delete headers[name.toLowerCase()],
  };
  let failure: unknown;
  middleware({} as IncomingMessage, recorder as unknown as ServerResponse, (error?: unknown) => void (failure = error));
  if (failure) throw failure;
  return headers;
}

/** The policy of a response that is no page: it loads nothing and is framed nowhere (OWASP, REST security). */
const API_CONTENT_SECURITY_POLICY = "default-src 'none'; frame-ancestors 'none'";

/**
 * Whether a request accepts HTML (`text/html`, or `text/*`, in any letter case): a browser's navigation, the only
 * request that can get one of the API's pages.
 */
const ACCEPTS_HTML = /text\/(?:html|\*)/i;
const acceptsHtml = (accept: string | undefined): boolean => accept !== undefined && ACCEPTS_HTML.test(accept);

/**
 * The API set (see the file's comment): the page set without what applies to documents only, unless the application
 * chose it (`options`).
 */
function apiHeadersOf(pageHeaders: Readonly<Record<string, string>>, options: HelmetOptions): Record<string, string> {
  const headers = { ...pageHeaders };
  if (options.crossOriginOpenerPolicy === undefined) delete headers['cross-origin-opener-policy'];
  if (options.contentSecurityPolicy === undefined && headers['content-security-policy'] !== undefined)
    headers['content-security-policy'] = API_CONTENT_SECURITY_POLICY;
  return headers;
}

/**
 * The hook that sets the security headers. `graphiqlPath` names the GraphiQL page of the routes it serves, when they
 * have one (a function: the production plugin learns the path when the API defines its GraphQL routes).
 */
export function createSecurityHeaders(
  options: SecurityHeadersOptions,
  graphiqlPath: () => string | undefined,
): onRequestHookHandler {
  // Object.assign, not a spread: TypeScript's spread of two helmet option types exhausts the compiler's memory.
  const merged: HelmetOptions = Object.assign({}, createDefaultSecurityHeaders(), options);
  const middleware = helmet(merged);
  if (hasDynamicDirective(merged))
    return (request, reply, done) => middleware(request.raw, reply.raw, done as (error?: unknown) => void);
  const pageHeaders = recordHeaders(middleware);
  const apiHeaders = apiHeadersOf(pageHeaders, options);
  // Only the GraphiQL page, when the policy is ours, gets its inline script allowed.
  const policy = pageHeaders['content-security-policy'];
  const graphiqlHeaders =
    options.contentSecurityPolicy === undefined && policy !== undefined
      ? {
          ...pageHeaders,
          'content-security-policy': policy.replace("script-src 'self'", "script-src 'self' 'unsafe-inline'"),
        }
      : undefined;
  return (request, reply, done) => {
    if (!acceptsHtml(request.headers.accept)) reply.headers(apiHeaders);
    else {
      const page = graphiqlHeaders === undefined ? undefined : graphiqlPath();
      reply.headers(page !== undefined && isGraphiqlPage(request, page) ? graphiqlHeaders! : pageHeaders);
    }
    done();
  };
}
