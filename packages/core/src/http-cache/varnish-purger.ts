/**
 * Purging Varnish by cache tag (`createVarnishPurger`). `xkey` (the default) sends `PURGE /` with the tags in an
 * `xkey` header, which the VCL hands to the xkey module (`varnish-modules`): the objects indexed under any of them go
 * at once. `ban` sends `BAN /` with a regular expression of the tags in `X-Ban-Tags`, which the VCL turns into a ban
 * on the objects' `Cache-Tags` header (no module needed; the ban lurker does the work). The VCL of both is in
 * docs/http-cache.md. Tags beyond the header's size go in further requests, to every Varnish given, all at once.
 */
import type { CacheTagPurger } from './tag-purger.js';

/** `createVarnishPurger`'s options. */
export interface VarnishPurgerOptions {
  /** The address of Varnish (`http://127.0.0.1:6081`), or of each Varnish: every one is purged. */
  readonly url: string | readonly string[];
  /** `xkey` (default): `PURGE` with an `xkey` header; `ban`: `BAN` with a regular expression in `X-Ban-Tags`. */
  readonly mode?: 'xkey' | 'ban';
  /** The longest header one request carries, in bytes (default 7,000; Varnish refuses more than 8 KiB). */
  readonly maxHeaderBytes?: number;
  /** Milliseconds a purge request may take (default 2,000). */
  readonly timeout?: number;
}

/**
 * A tag as a regular expression matching it literally, without spaces or quotes (Varnish splits a ban expression at
 * spaces and takes quotes literally): each special character in brackets, but `^` and `\\` (never in an IRI, which
 * encodes them), escaped.
 */
const toLiteralPattern = (tag: string): string =>
  tag.replace(/[.*+?${}()|[\]^\\]/g, (character) =>
    character === '^' || character === '\\' ? `\\${character}` : character === ']' ? '[]]' : `[${character}]`,
  );
/** Where a tag starts and ends in `Cache-Tags` (`, `-separated), without a space or a backslash. */
const BEFORE = '(^|,)[[:blank:]]*';
const AFTER = '[[:blank:]]*(,|$)';

/** The tags cut into groups whose header (`joined` by `separator`) keeps within `maxBytes`. */
function groupTags(tags: readonly string[], separator: string, maxBytes: number, overhead: number): string[][] {
  const groups: string[][] = [];
  let group: string[] = [];
  let bytes = overhead;
  for (const tag of tags) {
    const size = Buffer.byteLength(tag) + separator.length;
    if (group.length > 0 && bytes + size > maxBytes) {
      groups.push(group);
      group = [];
      bytes = overhead;
    }
    group.push(tag);
    bytes += size;
  }
  if (group.length > 0) groups.push(group);
  return groups;
}

/** A purger of one or more Varnish servers. Throws `TypeError` on options it cannot use. */
export function createVarnishPurger(options: VarnishPurgerOptions): CacheTagPurger {
  const urls = (typeof options.url === 'string' ? [options.url] : [...options.url]).map((url) => {
    if (typeof url !== 'string' || !/^https?:\/\/[^/]/.test(url))
      throw new TypeError(`createVarnishPurger: "url" must be http(s):// addresses, got ${JSON.stringify(url)}.`);
    return url;
  });
  if (urls.length === 0) throw new TypeError('createVarnishPurger: "url" names no Varnish.');
  const { mode = 'xkey', maxHeaderBytes = 7_000, timeout = 2_000 } = options;
  if (mode !== 'xkey' && mode !== 'ban')
    throw new TypeError(`createVarnishPurger: "mode" must be "xkey" or "ban", got ${JSON.stringify(mode)}.`);
  if (!Number.isSafeInteger(maxHeaderBytes) || maxHeaderBytes < 256)
    throw new TypeError('createVarnishPurger: "maxHeaderBytes" must be a whole number of bytes, 256 or more.');
  if (!Number.isSafeInteger(timeout) || timeout < 1)
    throw new TypeError('createVarnishPurger: "timeout" must be a whole number of milliseconds.');

  /** One request per group of tags: its method and headers. */
  const requestsFor = (tags: readonly string[]): { method: string; headers: Record<string, string> }[] =>
    mode === 'xkey'
      ? groupTags(tags, ' ', maxHeaderBytes, 0).map((group) => ({
          method: 'PURGE',
          headers: { xkey: group.join(' ') },
        }))
      : groupTags(tags.map(toLiteralPattern), '|', maxHeaderBytes, BEFORE.length + AFTER.length + 2).map((group) => ({
          method: 'BAN',
          headers: { 'x-ban-tags': `${BEFORE}(${group.join('|')})${AFTER}` },
        }));

  async function send(url: string, request: { method: string; headers: Record<string, string> }): Promise<void> {
    const response = await fetch(new URL('/', url), {
      method: request.method,
      headers: request.headers,
      signal: AbortSignal.timeout(timeout),
    });
    // The body says what Varnish did (`Invalidated 3 objects`); nothing in it is needed.
    await response.body?.cancel();
    if (!response.ok) throw new Error(`Varnish at ${url} answered ${response.status} to ${request.method}.`);
  }

  return {
    name: `varnish ${urls.join(', ')}`,
    async purge(tags) {
      if (tags.length === 0) return;
      const requests = requestsFor(tags);
      await Promise.all(urls.flatMap((url) => requests.map((request) => send(url, request))));
    },
  };
}
