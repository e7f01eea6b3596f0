/**
 * The one place that turns an error into a response: a JSON-LD `hydra:Error` that is also an RFC 7807 problem, a
 * `ConstraintViolationList` for violations, or plain problem details for `Accept: application/json`.
 * Errors that are not the framework's own are 500s: logged in full, sent without any detail or stack.
 */
import { ApiError, type ErrorName } from '../errors.js';
import { negotiateOutput } from '../pipeline/stages/negotiate.js';
import { HYDRA, MEDIA_TYPES } from '../serializer/vocabulary.js';
import { isDatabaseUnavailable, UNAVAILABLE_RETRY_AFTER } from '../state/dialects/unavailable.js';

export interface RenderedError {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: Record<string, unknown>;
  /** The error as rendered, for logs. */
  readonly error: ApiError;
  /** True for 500s: the original error must be logged. */
  readonly unexpected: boolean;
}

const TITLE = 'An error occurred';

/** Fastify's own errors (body parsing, limits) mapped into the catalog. */
const FASTIFY_ERRORS: Record<string, { name: ErrorName; detail: (message: string) => string }> = {
  FST_ERR_CTP_BODY_TOO_LARGE: { name: 'PAYLOAD_TOO_LARGE', detail: () => 'The request body is too large.' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { name: 'UNSUPPORTED_MEDIA_TYPE', detail: (m) => m },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: {
    name: 'MALFORMED_BODY',
    detail: () => 'The Content-Length header does not match the body.',
  },
  FST_ERR_CTP_EMPTY_JSON_BODY: { name: 'EMPTY_BODY', detail: () => 'The request body is empty; send a JSON object.' },
  FST_ERR_CTP_INVALID_JSON_BODY: { name: 'MALFORMED_BODY', detail: (m) => `Syntax error: ${m}` },
};

/**
 * A path the static file server of the documentation assets (Swagger UI's files, through @fastify/static and
 * @fastify/send) refuses: `..\`, a NUL, a path outside its folder. It answers as though nothing were there (a 404:
 * no hint that the path was seen as an attack), not as an unexpected error. send's refusals are http-errors
 * (`expose` true, a 4xx `status`); @fastify/static's own has its code.
 */
function refusedFilePath(error: unknown): boolean {
  const { code, status, expose } = (error ?? {}) as { code?: string; status?: number; expose?: boolean };
  return code === 'FST_STATIC_FORBIDDEN_PATH' || (expose === true && (status === 403 || status === 404));
}

/** Any thrown value → an ApiError from the catalog. */
export function toApiError(error: unknown): { error: ApiError; unexpected: boolean } {
  if (error instanceof ApiError) return { error, unexpected: false };
  const { code, statusCode, message } = (error ?? {}) as { code?: string; statusCode?: number; message?: string };
  const known = code ? FASTIFY_ERRORS[code] : undefined;
  if (known) return { error: new ApiError(known.name, known.detail(message ?? '')), unexpected: false };
  if (refusedFilePath(error))
    return { error: new ApiError('ROUTE_NOT_FOUND', 'No file found at this path.'), unexpected: false };
  if (error instanceof SyntaxError && statusCode === 400) {
    return { error: new ApiError('MALFORMED_BODY', `Syntax error: ${message}`), unexpected: false };
  }
  if (statusCode === 400 && typeof message === 'string')
    return { error: new ApiError('MALFORMED_BODY', message), unexpected: false };
  // A database that is down or restarting is no bug of the request: a 503 the client can retry, never a 500. The
  // driver's message names hosts and ports, so it stays out of the body.
  if (isDatabaseUnavailable(error)) {
    const detail = `The database is unavailable. Retry in ${UNAVAILABLE_RETRY_AFTER} seconds.`;
    return {
      error: new ApiError('DATABASE_UNAVAILABLE', detail, {
        headers: { 'retry-after': String(UNAVAILABLE_RETRY_AFTER) },
        cause: error,
      }),
      unexpected: false,
    };
  }
  return { error: new ApiError('INTERNAL', 'Internal Server Error'), unexpected: true };
}

/** A request's logger, as far as errors need it. */
export interface ErrorLog {
  error(object: unknown, message: string): void;
  warn(object: unknown, message: string): void;
}

/**
 * Logs what operators must see, for REST and GraphQL alike: an unexpected error (a 500) in full, and a 503 (the
 * database or the JWKS server is down) as a warning with its cause. True when it logged; the rest are the client's.
 */
export function logServiceError(
  log: ErrorLog,
  thrown: unknown,
  { error, unexpected }: { error: ApiError; unexpected: boolean },
): boolean {
  if (unexpected) log.error({ err: thrown }, 'unexpected error');
  else if (error.status === 503) log.warn({ code: error.code, status: error.status, err: error.cause }, error.message);
  else return false;
  return true;
}

export function renderError(thrown: unknown, options: { accept: string | undefined; prefix: string }): RenderedError {
  const { error, unexpected } = toApiError(thrown);
  // Plain problem details for clients that prefer JSON; JSON-LD otherwise (also when nothing is acceptable: a 406).
  const chosen = negotiateOutput(options.accept, [MEDIA_TYPES.jsonld, MEDIA_TYPES.json, MEDIA_TYPES.problem]);
  const plain = chosen !== undefined && chosen !== MEDIA_TYPES.jsonld;
  const headers: Record<string, string> = {
    ...error.headers,
    'content-type': `${plain ? MEDIA_TYPES.problem : MEDIA_TYPES.jsonld}; charset=utf-8`,
  };
  const detail = error.message;
  let body: Record<string, unknown>;
  if (error.violations) {
    const violations = error.violations.map(({ propertyPath, message, code }) => ({ propertyPath, message, code }));
    body = plain
      ? {
          type: `/validation_errors/${error.violations[0]?.code ?? 'unknown'}`,
          title: TITLE,
          detail,
          status: error.status,
          violations,
        }
      : {
          '@context': `${options.prefix}/contexts/ConstraintViolationList`,
          '@type': 'ConstraintViolationList',
          [HYDRA.title]: TITLE,
          [HYDRA.description]: detail,
          violations,
        };
  } else {
    body = plain
      ? { type: `/errors/${error.status}`, title: TITLE, detail, status: error.status }
      : {
          '@context': `${options.prefix}/contexts/Error`,
          '@type': HYDRA.error,
          [HYDRA.title]: TITLE,
          [HYDRA.description]: detail,
          title: TITLE,
          detail,
          status: error.status,
          type: `/errors/${error.status}`,
        };
  }
  return { status: error.status, headers, body, error, unexpected };
}
