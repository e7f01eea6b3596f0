/**
 * `multipart/form-data` bodies, for the operations that write a file field: parsed with @fastify/multipart (busboy),
 * each file streamed to a temporary object of the storage while its first bytes are kept to judge it, never held whole
 * in memory. The body becomes an object of the parts: text fields as strings, files as `UploadedFile`s, then the
 * pipeline runs as for JSON. Limits: the whole body (`Content-Length`, and the bytes counted while streaming, for a
 * chunked body), the number of parts; over them 413, a malformed or cut-off body 400. Temporary objects are removed
 * before the response is sent, whatever it is (a write moved the ones it kept to their final names first), and when
 * the client goes away.
 */
import { randomUUID } from 'node:crypto';
import { basename } from 'node:path';
import { Readable } from 'node:stream';
import type {} from '@fastify/multipart';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../errors.js';
import type { FileStorage } from '../files/file-storage.js';
import { SNIFFED_BYTES, sniffFile } from '../files/sniff-file.js';
import { UploadedFile } from '../files/uploaded-file.js';

export const MULTIPART_FORM_DATA = 'multipart/form-data';

/** The limits of multipart bodies (the `uploads` plugin option). */
export interface MultipartLimits {
  /** The largest body, in bytes. */
  readonly bodyLimit: number;
  /** The most parts (text fields and files). */
  readonly maxParts: number;
}

const tooLarge = (limit: number): ApiError =>
  new ApiError('PAYLOAD_TOO_LARGE', `The request body is larger than ${limit} bytes.`);

/** A @fastify/multipart or busboy error → ours: its limits are 413, anything else a malformed body (400). */
function toApiError(error: unknown, limits: MultipartLimits): ApiError {
  if (error instanceof ApiError) return error;
  const status = (error as { statusCode?: number }).statusCode;
  if (status === 413) {
    const code = (error as { code?: string }).code;
    return code === 'FST_PARTS_LIMIT' || code === 'FST_FILES_LIMIT' || code === 'FST_FIELDS_LIMIT'
      ? new ApiError('PAYLOAD_TOO_LARGE', `The multipart body has more than ${limits.maxParts} parts.`)
      : tooLarge(limits.bodyLimit);
  }
  return new ApiError(
    'MALFORMED_MULTIPART',
    `The multipart body could not be read (${(error as Error).message ?? 'unknown error'}).`,
  );
}

/** The temporary objects of each request, removed before its response is sent. */
const temporaryKeys = new WeakMap<FastifyRequest, string[]>();

/** The file name a client gave, as a name only: no directory, no control characters, at most 255 characters. */
export function toClientFileName(name: string | undefined): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is removed
  const flat = basename((name ?? '').replaceAll('\\', '/')).replace(/[\u0000-\u001f\u007f]/g, '');
  return flat === '.' || flat === '..' ? '' : flat.slice(0, 255);
}

/** The hooks of an operation that takes uploads: read the multipart body (preValidation), then clean up (onSend). */
export function createMultipartHooks(storage: FileStorage, limits: MultipartLimits) {
  async function readMultipart(request: FastifyRequest): Promise<void> {
    if (!request.isMultipart()) return;
    const declared = Number(request.headers['content-length']);
    if (declared > limits.bodyLimit) throw tooLarge(limits.bodyLimit);
    const keys: string[] = [];
    temporaryKeys.set(request, keys);
    const body: Record<string, unknown> = {};
    let total = 0;
    try {
      const parts = request.parts({
        limits: {
          parts: limits.maxParts,
          files: limits.maxParts,
          fields: limits.maxParts,
          // One more byte than the body may hold: the count below is what refuses it, with the body's limit.
          fileSize: limits.bodyLimit + 1,
          fieldSize: limits.bodyLimit,
        },
      });
      for await (const part of parts) {
        if (part.type === 'field') {
          total += Buffer.byteLength(String(part.value));
          if (total > limits.bodyLimit) throw tooLarge(limits.bodyLimit);
          body[part.fieldname] = part.value;
          continue;
        }
        const key = `upload-${randomUUID()}`;
        keys.push(key);
        const head: Buffer[] = [];
        let kept = 0;
        let size = 0;
        async function* counted(source: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
          for await (const chunk of source) {
            size += chunk.length;
            total += chunk.length;
            if (total > limits.bodyLimit) throw tooLarge(limits.bodyLimit);
            if (kept < SNIFFED_BYTES) {
              head.push(chunk.subarray(0, SNIFFED_BYTES - kept));
              kept += Math.min(chunk.length, SNIFFED_BYTES - kept);
            }
            yield chunk;
          }
        }
        await storage.write(key, Readable.from(counted(part.file)));
        const sniffed = sniffFile(Buffer.concat(head));
        body[part.fieldname] = new UploadedFile(
          key,
          size,
          sniffed.mimeType,
          sniffed.dimensions,
          toClientFileName(part.filename),
          part.mimetype,
        );
      }
    } catch (error) {
      throw toApiError(error, limits);
    }
    request.body = body;
  }

  async function removeTemporaryFiles(request: FastifyRequest): Promise<void> {
    const keys = temporaryKeys.get(request);
    if (!keys) return;
    temporaryKeys.delete(request);
    await Promise.all(
      keys.map((key) =>
        storage
          .remove(key)
          .catch((error: unknown) => request.log.error({ err: error }, 'A temporary upload could not be removed.')),
      ),
    );
  }

  return {
    preValidation: readMultipart,
    onSend: async (request: FastifyRequest, _reply: FastifyReply, payload: unknown) => {
      await removeTemporaryFiles(request);
      return payload;
    },
    onRequestAbort: removeTemporaryFiles,
  };
}
