/**
 * Mercure discovery: every response of the API's scopes carries `Link: <hub>; rel="mercure"`, the hub's URL as
 * subscribers reach it — the configured public URL, or the built-in hub on the request's own origin. One value per
 * origin, made once (bounded: the Host header is the client's to choose); added to whatever `Link` the response has.
 */
import type { FastifyInstance } from 'fastify';
import { BoundedMemo } from '../bounded-memo.js';
import { HUB_PATH } from './mercure-routes.js';
import { readOrigin } from './to-operation-request.js';

/** Adds the hook to one of the API's scopes; `publicUrl` null: the built-in hub, on each request's origin. */
export function registerMercureLink(scope: FastifyInstance, publicUrl: string | null): void {
  const fixed = publicUrl === null ? null : `<${publicUrl}>; rel="mercure"`;
  const byOrigin = new BoundedMemo<string, string>(64);
  scope.addHook('onSend', (request, reply, payload, done) => {
    let link = fixed;
    if (link === null) {
      const origin = readOrigin(request);
      link = byOrigin.get(origin) ?? byOrigin.keep(origin, `<${origin}${HUB_PATH}>; rel="mercure"`);
    }
    const existing = reply.getHeader('link');
    reply.header('link', existing === undefined ? link : `${String(existing)}, ${link}`);
    done(null, payload);
  });
}
