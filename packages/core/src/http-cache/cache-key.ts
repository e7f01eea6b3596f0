/**
 * The key of a response in the in-process cache, read from the request as it arrived: the `Host` header (with its
 * port), the forwarded host and protocol (which make the origin of the `Link` headers when the app trusts a proxy),
 * the URL as sent, and `Accept`. The hit answered before the app (`routing/front-cache-hits.ts`) and the hooks that
 * store and answer in the route (`routing/memory-cache-hooks.ts`) read it from the same raw headers, so both find the
 * same entry; a request that differs in any of them is another key, never another's response.
 */
import type { IncomingHttpHeaders } from 'node:http';

export const buildCacheKey = (headers: IncomingHttpHeaders, url: string | undefined): string =>
  `${headers.host ?? ''}\n${String(headers['x-forwarded-host'] ?? '')}\n${String(headers['x-forwarded-proto'] ?? '')}\n${url ?? ''}\n${headers.accept ?? ''}`;

/** The values of `names` (lower case) in `headers`, as the cache compares them: several values joined by `, `. */
export function readVaryValues(
  headers: IncomingHttpHeaders,
  names: Iterable<string>,
): Record<string, string | undefined> {
  const values: Record<string, string | undefined> = {};
  for (const name of names) values[name] = readHeader(headers, name);
  return values;
}

/** Whether `headers` hold the values of the headers a kept response varies on (beyond the key) that it had then. */
export function isSameVariant(
  headers: IncomingHttpHeaders,
  varies: Readonly<Record<string, string | undefined>>,
): boolean {
  for (const name in varies) if (readHeader(headers, name) !== varies[name]) return false;
  return true;
}

const readHeader = (headers: IncomingHttpHeaders, name: string): string | undefined => {
  const value = headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
};
