/**
 * The HTTP side of the built-in Mercure hub, at `/.well-known/mercure`, in a Fastify context that is one of the API's
 * scopes (the production plugin's CORS, headers and rate limits reach it):
 * - `GET ?topic=…` (several allowed; exact topics, URI templates, `*`) subscribes: a `text/event-stream` response that
 *   stays open, resuming after `Last-Event-ID` (header, or `lastEventID` parameter) from the hub's history. Private
 *   updates reach it only when its JWT (`Authorization: Bearer`, else the `mercureAuthorization` cookie) has a
 *   `mercure.subscribe` claim matching one of their topics. A JWT that does not verify is a 401, never ignored.
 * - `POST` (an `application/x-www-form-urlencoded` form: `topic`, `data`, `private`, `id`, `type`, `retry`) publishes,
 *   for publishers other than the framework, with a JWT whose `mercure.publish` claim matches each topic.
 */
import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../errors.js';
import type { BuiltinHub } from '../mercure/builtin-hub.js';
import type { MercureUpdate } from '../mercure/hub.js';
import { type HubGrants, readHubToken, verifyHubToken } from '../mercure/hub-tokens.js';
import { compileTopicSelector, isEachSelected } from '../mercure/topic-selector.js';
import { logServiceError, renderError } from '../response/render-error.js';
import { type ApiScopeSetup, prepareApiScope } from './api-scope.js';
import { createEventStreamWriter } from './event-stream-writer.js';

/** The path the Mercure protocol gives the hub. */
export const HUB_PATH = '/.well-known/mercure';

export interface MercureRoutesOptions {
  readonly hub: BuiltinHub;
  /** Sends a publisher's update to the hub of every instance (`WritePublisher.relay`); default: to this hub alone. */
  readonly relay?: (update: MercureUpdate) => Promise<string>;
  /**
   * The secret subscribers' and publishers' JWTs are signed with; null: no token is valid (no private update, no
   * publisher).
   */
  readonly jwtKey: Uint8Array | null;
  /** Subscribers without a JWT may subscribe (to public updates). */
  readonly anonymous: boolean;
  /** The largest publish body, in bytes. */
  readonly bodyLimit: number;
  /** The API's prefix (`/api`), for the error bodies' `@context`. */
  readonly apiPrefix: string;
  readonly setUpScope: ApiScopeSetup;
}

const FORM = 'application/x-www-form-urlencoded';

/** The values of a query parameter given once or several times. */
const valuesOf = (value: unknown): string[] =>
  typeof value === 'string' ? [value] : Array.isArray(value) ? value.filter((v) => typeof v === 'string') : [];

export async function registerMercureRoutes(app: FastifyInstance, options: MercureRoutesOptions): Promise<void> {
  const { hub, jwtKey } = options;
  prepareApiScope(app, { kind: 'hub', path: HUB_PATH }, options.setUpScope);
  app.setErrorHandler((error, request, reply) => {
    const rendered = renderError(error, { accept: request.headers.accept, prefix: options.apiPrefix });
    if (!logServiceError(request.log, error, rendered))
      request.log.info({ code: rendered.error.code, status: rendered.status }, rendered.error.message);
    return reply.code(rendered.status).headers(rendered.headers).send(rendered.body);
  });
  app.addContentTypeParser(FORM, { parseAs: 'string', bodyLimit: options.bodyLimit }, (_request, body, done) =>
    done(null, new URLSearchParams(body as string)),
  );

  /** The grants of the request's JWT; null without one. Throws 401 for a token that does not verify. */
  async function grantsOf(request: FastifyRequest): Promise<HubGrants | null> {
    const token = readHubToken(request.headers);
    if (token === undefined) return null;
    if (!jwtKey)
      throw new ApiError('MERCURE_UNAUTHORIZED', 'This hub accepts no JWT: it has no key (mercure.jwtSecret).');
    try {
      return await verifyHubToken(token, jwtKey);
    } catch (error) {
      throw new ApiError('MERCURE_UNAUTHORIZED', `The JWT is not valid: ${(error as Error).message}`, {
        headers: { 'www-authenticate': 'Bearer error="invalid_token"' },
      });
    }
  }

  app.get('/', async (request, reply) => subscribe(request, reply));
  app.post('/', async (request, reply) => {
    if (!(request.body instanceof URLSearchParams))
      throw new ApiError('UNSUPPORTED_MEDIA_TYPE', `Updates are sent as ${FORM} forms.`);
    const grants = await grantsOf(request);
    if (!grants) throw new ApiError('MERCURE_UNAUTHORIZED', 'Publishing needs a JWT with a mercure.publish claim.');
    const form = request.body;
    const topics = form.getAll('topic');
    if (topics.length === 0 || topics.some((topic) => topic === ''))
      throw new ApiError('MERCURE_TOPIC_MISSING', 'An update needs a "topic".');
    if (!grants.publish || !isEachSelected(grants.publish, topics))
      throw new ApiError('MERCURE_FORBIDDEN', 'The JWT does not allow publishing to every topic of this update.');
    const id = form.get('id') ?? undefined;
    if (id !== undefined && (id === '' || id.startsWith('#') || /[\r\n\0]/.test(id)))
      throw new ApiError('MERCURE_INVALID_UPDATE', '"id" must not be empty, start with "#" or hold a line break.');
    const type = form.get('type') ?? undefined;
    if (type !== undefined && /[\r\n]/.test(type))
      throw new ApiError('MERCURE_INVALID_UPDATE', '"type" must not hold a line break.');
    const retry = form.get('retry') ?? undefined;
    if (retry !== undefined && !/^[0-9]{1,10}$/.test(retry))
      throw new ApiError('MERCURE_INVALID_UPDATE', '"retry" must be a number of milliseconds.');
    const published = await (options.relay ?? hub.publish)({
      topics,
      data: form.get('data') ?? '',
      private: form.has('private'),
      ...(id !== undefined ? { id } : {}),
      ...(type !== undefined ? { type } : {}),
      ...(retry !== undefined ? { retry: Number(retry) } : {}),
    });
    return reply.type('text/plain; charset=utf-8').send(published);
  });

  async function subscribe(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const query = request.query as Record<string, unknown>;
    const topics = valuesOf(query.topic);
    if (topics.length === 0) throw new ApiError('MERCURE_TOPIC_MISSING', 'Subscribe to one "topic" at least.');
    const grants = await grantsOf(request);
    if (!grants && !options.anonymous)
      throw new ApiError('MERCURE_UNAUTHORIZED', 'Subscribing needs a JWT with a mercure.subscribe claim.');
    const header = request.headers['last-event-id'];
    const lastEventId = typeof header === 'string' ? header : valuesOf(query.lastEventID)[0];
    const { socket } = request.raw;
    // Pushed by the hub; nothing is read from it: its `read` has nothing to do.
    const stream = new Readable({ read() {} });
    const subscription = hub.subscribe({
      topics: topics.map(compileTopicSelector),
      allowed: grants?.subscribe ?? [],
      lastEventId,
      sink: {
        write: createEventStreamWriter(stream, reply.raw, request.raw.httpVersionMajor),
        // What the stream holds, and what the response holds that the socket has not taken.
        queued: () => stream.readableLength + reply.raw.writableLength,
        end: (why) => {
          if (why === 'slow') {
            // What it was sent would never drain: the connection goes, and what it held with it.
            stream.destroy();
            socket.destroy();
            return;
          }
          // The hub closes (so does the server): the stream ends, then its connection, which would otherwise stay
          // open for keep-alive and hold the server's close. Taken from the request: a finished response has none.
          reply.raw.once('finish', () => socket.end());
          setTimeout(() => socket.destroy(), 1_000).unref();
          stream.push(null);
        },
      },
    });
    if (!subscription) {
      stream.destroy();
      throw new ApiError('MERCURE_HUB_FULL', 'The hub holds as many subscribers as it may; retry later.', {
        headers: { 'retry-after': '10' },
      });
    }
    reply.raw.on('close', () => {
      subscription.unsubscribe();
      stream.destroy();
    });
    // A comment first: the headers leave at once (EventSource opens), whatever the history had to resume.
    stream.unshift(Buffer.from(':\n\n'));
    return reply
      .headers({
        'content-type': 'text/event-stream',
        'cache-control': 'private, no-cache, no-store, must-revalidate, max-age=0',
        // Proxies (nginx) would hold the events back to fill their buffers.
        'x-accel-buffering': 'no',
        'last-event-id': subscription.lastEventId,
      })
      .send(stream);
  }
}
