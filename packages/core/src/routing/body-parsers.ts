/**
 * Body parsing for the API routes. JSON bodies (`application/json`, `application/ld+json`,
 * `application/merge-patch+json`) go through Fastify's own parser, which refuses `__proto__` and `constructor` keys;
 * an empty one becomes "no body". Any other type is read but left unparsed, so the negotiate stage can answer 415
 * with the list of supported types.
 */
import type { FastifyInstance } from 'fastify';
import { MEDIA_TYPES } from '../serializer/vocabulary.js';

/** Stands for a body of a type the API does not read. */
export const UNREAD_BODY = Object.freeze({ unread: true });

export function registerBodyParsers(app: FastifyInstance, bodyLimit: number): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    [MEDIA_TYPES.json, MEDIA_TYPES.jsonld, MEDIA_TYPES.mergePatch],
    { parseAs: 'string', bodyLimit },
    (request, body, done) => {
      if ((body as string).trim() === '') {
        done(null, undefined);
        return;
      }
      parseJson(request, body as string, done);
    },
  );
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit }, (_request, body, done) => {
    done(null, (body as Buffer).length === 0 ? undefined : UNREAD_BODY);
  });
}
