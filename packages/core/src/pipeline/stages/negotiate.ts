/**
 * Stage 1, negotiate. Reads the Accept and Content-Type headers; writes `context.format`.
 * Throws 406 when no acceptable output format exists, 415 when a body-reading operation gets a body of another type
 * (or none declared). Operations without a body ignore Content-Type (API Platform Admin sends it on GET and DELETE).
 */
import Negotiator from 'negotiator';
import { ApiError } from '../../errors.js';
import { MEDIA_TYPES, type OutputFormat } from '../../serializer/vocabulary.js';
import type { RequestScope } from '../operation-context.js';

const OUTPUT_TYPES = [MEDIA_TYPES.jsonld, MEDIA_TYPES.json];
const FORMAT_OF: Record<string, OutputFormat> = { [MEDIA_TYPES.jsonld]: 'jsonld', [MEDIA_TYPES.json]: 'json' };

/** The output format for an Accept header, or undefined when none is acceptable. Missing or `*\/*` → JSON-LD. */
export function negotiateOutput(
  accept: string | undefined,
  available: readonly string[] = OUTPUT_TYPES,
): string | undefined {
  if (!accept) return available[0];
  // One media type named exactly (GraphQL's operations, most API clients): that type, without parsing the header.
  if (available.includes(accept)) return accept;
  return new Negotiator({ headers: { accept } }).mediaType(available as string[]);
}

const mediaTypeOf = (contentType: string): string => contentType.split(';')[0]!.trim().toLowerCase();

export function negotiate(context: RequestScope): void {
  const { request, operation } = context;
  const output = negotiateOutput(request.accept);
  if (!output) {
    throw new ApiError(
      'NOT_ACCEPTABLE',
      `Requested format "${request.accept}" is not supported. Supported MIME types are "${OUTPUT_TYPES.join('", "')}".`,
    );
  }
  context.format = FORMAT_OF[output]!;

  if (!operation.stages.deserialize) return;
  if (request.contentType === undefined) {
    if (request.body === undefined) return; // no body at all: the deserialize stage says so, with a clearer message
    throw new ApiError('CONTENT_TYPE_MISSING', 'The "Content-Type" header must exist.');
  }
  if (!operation.inputFormats.includes(mediaTypeOf(request.contentType))) {
    throw new ApiError(
      'UNSUPPORTED_MEDIA_TYPE',
      `The content-type "${mediaTypeOf(request.contentType)}" is not supported. Supported MIME types are "${operation.inputFormats.join('", "')}".`,
    );
  }
}
