/**
 * The stored files of uploads, served under their own path (`/media/<name>`, the items' `contentUrl`), in a Fastify
 * context that is one of the API's scopes (the production plugin's headers reach it). Only names the framework makes
 * are looked up (a hex name and an extension: never a path, never a temporary upload). Each file is sent with the
 * type its extension stands for (judged from its bytes when it was uploaded), an `ETag` (the name: a stored file never
 * changes), `X-Content-Type-Options: nosniff`, and `Content-Disposition: attachment` for anything that is not an
 * image, so no browser runs what it was sent.
 */
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../errors.js';
import type { FileStorage } from '../files/file-storage.js';
import { toMimeType } from '../files/sniff-file.js';
import { ifNoneMatchMatches } from '../pipeline/entity-tag.js';
import { logServiceError, renderError } from '../response/render-error.js';
import { type ApiScopeSetup, prepareApiScope } from './api-scope.js';

/** The names `place-uploads.ts` gives: 32 hex digits and an extension. */
const STORED_NAME = /^([0-9a-f]{32})\.([a-z0-9]{1,8})$/;

export interface FileRoutesOptions {
  readonly storage: FileStorage;
  /** The path the files are served under (`/media`). */
  readonly path: string;
  /** The API's prefix (`/api`), for the error bodies' `@context`. */
  readonly apiPrefix: string;
  readonly setUpScope: ApiScopeSetup;
}

export async function registerFileRoutes(app: FastifyInstance, options: FileRoutesOptions): Promise<void> {
  const { storage, path } = options;
  prepareApiScope(app, { kind: 'files', prefix: path }, options.setUpScope);
  app.setErrorHandler((error, request, reply) => {
    const rendered = renderError(error, { accept: request.headers.accept, prefix: options.apiPrefix });
    if (!logServiceError(request.log, error, rendered))
      request.log.info({ code: rendered.error.code, status: rendered.status }, rendered.error.message);
    return reply.code(rendered.status).headers(rendered.headers).send(rendered.body);
  });
  app.setNotFoundHandler((request) => {
    throw new ApiError('FILE_NOT_FOUND', `No file "${request.url.split('?')[0]}".`);
  });
  app.get('/:name', async (request, reply) => {
    const { name } = request.params as { name: string };
    const match = STORED_NAME.exec(name);
    const stored = match ? await storage.read(name) : null;
    if (!match || !stored) throw new ApiError('FILE_NOT_FOUND', `No file "${name}".`);
    const type = toMimeType(match[2]!);
    const etag = `"${match[1]}"`;
    reply.header('x-content-type-options', 'nosniff').header('etag', etag);
    if (!type.startsWith('image/')) reply.header('content-disposition', 'attachment');
    const ifNoneMatch = request.headers['if-none-match'];
    if (ifNoneMatch !== undefined && ifNoneMatchMatches(ifNoneMatch, [etag])) {
      stored.content.destroy();
      return reply.code(304).send();
    }
    return reply.type(type).header('content-length', stored.size).send(stored.content);
  });
}
