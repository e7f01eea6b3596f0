/**
 * Body parsing for the API routes. JSON bodies (`application/json`, `application/ld+json`,
 * `application/merge-patch+json`) must be UTF-8 (RFC 8259), nested at most `MAX_JSON_DEPTH` levels, and free of
 * unpaired surrogates; they then go through Fastify's own parser, which refuses `__proto__` and
 * `constructor.prototype` keys (the answer names the key). Each refusal is a 400 before anything runs; an empty body
 * becomes "no body". Any other type is read but left unparsed, so the negotiate stage can answer 415 with the list of
 * supported types.
 */
import { isUtf8 } from 'node:buffer';
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../errors.js';
import { MEDIA_TYPES } from '../serializer/vocabulary.js';

/** Stands for a body of a type the API does not read. */
export const UNREAD_BODY = Object.freeze({ unread: true });

/**
 * How deep arrays and objects may nest in a JSON body. Deeper bodies are refused before parsing, so no later step
 * (validation, the JSON columns, the response) can overflow its stack on them.
 */
export const MAX_JSON_DEPTH = 64;

const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** Whether arrays and objects in the JSON text nest deeper than `limit` (brackets inside strings do not count). */
export function nestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === BACKSLASH) index++;
      else if (code === QUOTE) inString = false;
    } else if (code === QUOTE) inString = true;
    else if (code === OPEN_BRACE || code === OPEN_BRACKET) {
      if (++depth > limit) return true;
    } else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) depth--;
  }
  return false;
}

/**
 * Whether a parsed JSON value holds a string (value or key) with an unpaired surrogate (`"\ud800"`): valid JSON, but
 * no database stores it as sent (drivers write U+FFFD instead), so accepting it would change the data silently.
 */
export function hasUnpairedSurrogate(value: unknown): boolean {
  if (typeof value === 'string') return !(value as string & { isWellFormed(): boolean }).isWellFormed();
  if (value === null || typeof value !== 'object') return false;
  if (Array.isArray(value)) return value.some(hasUnpairedSurrogate);
  return Object.entries(value).some(([key, member]) => hasUnpairedSurrogate(key) || hasUnpairedSurrogate(member));
}

/**
 * The key that made Fastify's parser (secure-json-parse, `protoAction` and `constructorAction` "error") refuse valid
 * JSON: `__proto__`, or `constructor` holding a `prototype` key; undefined when the text is not JSON at all. Run only
 * on a refused body. JSON.parse makes `__proto__` an own key, so the reviver sees it as any other.
 */
export function findForbiddenKey(text: string): '__proto__' | 'constructor.prototype' | undefined {
  let found: '__proto__' | 'constructor.prototype' | undefined;
  try {
    JSON.parse(text, (key, value: unknown) => {
      if (key === '__proto__') found ??= '__proto__';
      else if (
        key === 'constructor' &&
        value !== null &&
        typeof value === 'object' &&
        Object.hasOwn(value, 'prototype')
      )
        found ??= 'constructor.prototype';
      return value;
    });
  } catch {
    return undefined;
  }
  return found;
}

type ContentTypeParser = Parameters<FastifyInstance['addContentTypeParser']>[2];

/** A 400 for a refused body; `statusCode` too, for error handlers other than ours (mercurius's, on `/graphql`). */
const malformed = (detail: string): ApiError =>
  Object.assign(new ApiError('MALFORMED_BODY', detail), { statusCode: 400 });

/**
 * The JSON body parser with the checks above, on Fastify's own parser (`__proto__` and `constructor.prototype`
 * refused).
 */
function checkedJsonParser(app: FastifyInstance): ContentTypeParser {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  return ((request, body, done) => {
    const bytes = body as Buffer;
    if (!isUtf8(bytes)) return done(malformed('The request body is not valid UTF-8.'), undefined);
    const text = bytes.toString('utf8');
    if (text.trim() === '') return done(null, undefined);
    if (nestsDeeperThan(text, MAX_JSON_DEPTH)) {
      return done(malformed(`The request body is nested too deeply (more than ${MAX_JSON_DEPTH} levels).`), undefined);
    }
    parseJson(request, text, (error, parsed) => {
      if (error) {
        // Fastify's parser says "not valid JSON" for a forbidden key too: name the key instead.
        const key = findForbiddenKey(text);
        return done(key ? malformed(`The JSON body must not contain the key "${key}".`) : error, undefined);
      }
      if (hasUnpairedSurrogate(parsed)) {
        return done(
          malformed('The request body holds a string that is not valid Unicode (an unpaired surrogate).'),
          undefined,
        );
      }
      done(null, parsed);
    });
  }) as ContentTypeParser;
}

export function registerBodyParsers(app: FastifyInstance, bodyLimit: number): void {
  const parseJson = checkedJsonParser(app);
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    [MEDIA_TYPES.json, MEDIA_TYPES.jsonld, MEDIA_TYPES.mergePatch],
    { parseAs: 'buffer', bodyLimit },
    parseJson,
  );
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit }, (_request, body, done) => {
    done(null, (body as Buffer).length === 0 ? undefined : UNREAD_BODY);
  });
}

/**
 * The same checked JSON parser for `application/json` in another route context (the GraphQL endpoint), leaving its
 * other parsers alone: GraphQL variables get the same UTF-8, depth and Unicode guarantees as REST bodies.
 */
export function registerJsonBodyParser(app: FastifyInstance, bodyLimit: number): void {
  const parseJson = checkedJsonParser(app);
  app.removeContentTypeParser(MEDIA_TYPES.json);
  app.addContentTypeParser(MEDIA_TYPES.json, { parseAs: 'buffer', bodyLimit }, parseJson);
}

/**
 * A `multipart/form-data` request to the GraphQL endpoint: a 415 that says why, without reading the body. GraphQL
 * takes no uploads (the multipart request convention is not supported, docs/uploads.md): a file goes to its REST
 * operation, and a mutation names the stored item by its IRI.
 */
export function refuseMultipartBodies(app: FastifyInstance): void {
  app.addContentTypeParser('multipart/form-data', (_request, _body, done) =>
    done(
      Object.assign(
        new ApiError(
          'UNSUPPORTED_MEDIA_TYPE',
          'The GraphQL endpoint takes no uploads (multipart/form-data): send the file to its REST operation, then pass the IRI of the item created.',
        ),
        { statusCode: 415 },
      ),
      undefined,
    ),
  );
}
