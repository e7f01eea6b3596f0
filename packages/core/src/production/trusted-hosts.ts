/**
 * Trusted hosts, as Symfony's `trusted_hosts`: with the `trustedHosts` option set, a request whose host is none of
 * them is a 400 before anything else runs. The host is the one Fastify reads (`request.hostname`, without the port):
 * the `Host` header, or `X-Forwarded-Host` when the app trusts its proxy (Fastify's `trustProxy`). The API writes
 * that host into its absolute IRIs (the Hydra `@vocab`, the `Link` header's documentation URL, the JSON-LD contexts),
 * so without the check a forged `Host` would come back in them (and in any cache in front of the API).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError, DeclarationError } from '../errors.js';
import { renderError } from '../response/render-error.js';

/** A host name (`api.example.com`, compared without letter case) or a pattern the whole host name must match. */
export type TrustedHost = string | RegExp;

/** A host name as compared: lower case, without the port, without the brackets of an IPv6 address. */
const normalized = (host: string): string => host.toLowerCase().replace(/^\[(.*)\]$/, '$1');

/**
 * Whether `hostname` is one of `trusted`. A RegExp must match the whole name (`/^api\.example\.com$/`), as Symfony
 * anchors its patterns.
 */
export function isTrustedHost(hostname: string, trusted: readonly TrustedHost[]): boolean {
  const host = normalized(hostname);
  return trusted.some((entry) => {
    if (typeof entry === 'string') return normalized(entry) === host;
    const match = new RegExp(entry.source, entry.flags.replace(/[gy]/g, '')).exec(host);
    return match !== null && match.index === 0 && match[0].length === host.length;
  });
}

/** Checks the option at start: a non-empty list of host names (no scheme, port or path) and RegExps. */
function assertTrustedHosts(trusted: readonly TrustedHost[]): void {
  if (!Array.isArray(trusted) || trusted.length === 0)
    throw new DeclarationError('trustedHosts must be a non-empty list of host names or regular expressions.');
  for (const entry of trusted) {
    if (entry instanceof RegExp) continue;
    if (typeof entry !== 'string' || !/^(\[[0-9a-f:.]+\]|[^\s/:?#@[\]]+)$/i.test(entry)) {
      throw new DeclarationError(
        `trustedHosts: ${JSON.stringify(entry)} is not a host name (give it without scheme, port or path, e.g. "api.example.com"), nor a RegExp.`,
      );
    }
  }
}

const shown = (host: string): string => (host.length > 100 ? `${host.slice(0, 100)}…` : host);

/**
 * Every request of the API's routes added to (REST, documents, GraphQL, GraphiQL) for a host not in `trusted` gets
 * 400; `prefix` for the error's `@context`. The application's own routes, the health routes among them (load
 * balancers probe them by IP address), are not checked.
 */
export function registerTrustedHosts(app: FastifyInstance, trusted: readonly TrustedHost[], prefix: string): void {
  assertTrustedHosts(trusted);
  // A callback hook, not an async one: no promise per request. Answered here: the request may be for a route outside
  // the API's error handler (GraphiQL), and must get the catalog's body all the same.
  app.addHook('onRequest', (request: FastifyRequest, reply, done) => {
    const hostname = request.hostname;
    // The port goes into the absolute IRIs too (`request.host`): digits only.
    const port = request.host.slice(hostname.length);
    if (hostname !== '' && (port === '' || /^:\d{1,5}$/.test(port)) && isTrustedHost(hostname, trusted)) return done();
    const error = new ApiError(
      'UNTRUSTED_HOST',
      hostname === ''
        ? 'The request names no host (no Host header): send the host name of the API.'
        : `The host "${shown(request.host)}" is not one this API serves (trustedHosts): send the API's own host name.`,
    );
    const rendered = renderError(error, { accept: request.headers.accept, prefix });
    request.log.info({ code: error.code, status: error.status }, error.message);
    reply.code(rendered.status).headers(rendered.headers).send(rendered.body);
  });
}
