/**
 * The one error catalog. Every error the framework raises at request time carries a stable code, an HTTP status and
 * a message; `response/render-error.ts` is the only place that turns them into a response body. Boot-time mistakes
 * in declarations throw `DeclarationError` instead, and never reach a client.
 * `docs/errors.md` lists the same codes; a test keeps the two in step.
 */
/** A code, a status, and the sentence a client reads. */
export interface ErrorDefinition {
  readonly code: string;
  readonly status: number;
  readonly title: string;
}

const define = <T extends Record<string, ErrorDefinition>>(catalog: T): Readonly<T> => Object.freeze(catalog);

/** Every request-time error of the framework. */
export const ERRORS = define({
  ROUTE_NOT_FOUND: { code: 'API_ERR_ROUTING_NOT_FOUND', status: 404, title: 'No route matches the request path.' },
  FILE_NOT_FOUND: { code: 'API_ERR_FILES_NOT_FOUND', status: 404, title: 'No stored file has this name.' },
  MERCURE_TOPIC_MISSING: {
    code: 'API_ERR_MERCURE_TOPIC_MISSING',
    status: 400,
    title: 'A subscription or an update of the Mercure hub names no topic.',
  },
  MERCURE_INVALID_UPDATE: {
    code: 'API_ERR_MERCURE_INVALID_UPDATE',
    status: 400,
    title: 'A field of the update sent to the Mercure hub is not valid.',
  },
  MERCURE_UNAUTHORIZED: {
    code: 'API_ERR_MERCURE_UNAUTHORIZED',
    status: 401,
    title: 'The Mercure hub needs a valid JWT for this request.',
  },
  MERCURE_FORBIDDEN: {
    code: 'API_ERR_MERCURE_FORBIDDEN',
    status: 403,
    title: 'The JWT does not allow publishing to these topics.',
  },
  MERCURE_HUB_FULL: {
    code: 'API_ERR_MERCURE_HUB_FULL',
    status: 503,
    title: 'The Mercure hub holds as many subscribers as it may.',
  },
  METHOD_NOT_ALLOWED: {
    code: 'API_ERR_ROUTING_METHOD_NOT_ALLOWED',
    status: 405,
    title: 'The path exists, the method is not exposed on it.',
  },
  UNTRUSTED_HOST: {
    code: 'API_ERR_ROUTING_UNTRUSTED_HOST',
    status: 400,
    title: 'The request is for a host that is not one of the trusted hosts.',
  },
  ITEM_NOT_FOUND: {
    code: 'API_ERR_STATE_NOT_FOUND',
    status: 404,
    title: 'The item does not exist (or the identifier is not a valid one).',
  },
  NOT_ACCEPTABLE: {
    code: 'API_ERR_NEGOTIATE_NOT_ACCEPTABLE',
    status: 406,
    title: 'The Accept header names no format the operation can produce.',
  },
  UNSUPPORTED_MEDIA_TYPE: {
    code: 'API_ERR_NEGOTIATE_UNSUPPORTED_MEDIA_TYPE',
    status: 415,
    title: 'The Content-Type of the body is not one the operation reads.',
  },
  CONTENT_TYPE_MISSING: {
    code: 'API_ERR_NEGOTIATE_CONTENT_TYPE_MISSING',
    status: 415,
    title: 'A request body was sent without a Content-Type header.',
  },
  MALFORMED_BODY: { code: 'API_ERR_DESERIALIZE_MALFORMED', status: 400, title: 'The request body is not valid JSON.' },
  MALFORMED_MULTIPART: {
    code: 'API_ERR_DESERIALIZE_MALFORMED_MULTIPART',
    status: 400,
    title: 'The multipart/form-data body could not be read.',
  },
  EMPTY_BODY: {
    code: 'API_ERR_DESERIALIZE_EMPTY',
    status: 400,
    title: 'The operation needs a request body and none was sent.',
  },
  BODY_NOT_OBJECT: {
    code: 'API_ERR_DESERIALIZE_NOT_AN_OBJECT',
    status: 400,
    title: 'The request body must be a JSON object.',
  },
  UPDATE_NOT_ALLOWED: {
    code: 'API_ERR_DESERIALIZE_UPDATE_NOT_ALLOWED',
    status: 400,
    title: 'A POST body carries an @id: POST creates, it does not update.',
  },
  IDENTIFIER_MISMATCH: {
    code: 'API_ERR_DESERIALIZE_IDENTIFIER_MISMATCH',
    status: 400,
    title: 'A PUT body carries an @id that is not the IRI of the item at the request path.',
  },
  INVALID_PARAMETER: {
    code: 'API_ERR_PARAMETERS_INVALID',
    status: 400,
    title: 'A query parameter has a value the operation cannot use.',
  },
  VALIDATION_FAILED: {
    code: 'API_ERR_VALIDATION_FAILED',
    status: 400,
    title: 'The input breaks one or more constraints (ConstraintViolationList).',
  },
  PAYLOAD_TOO_LARGE: {
    code: 'API_ERR_REQUEST_TOO_LARGE',
    status: 413,
    title: 'The request body is larger than the configured limit.',
  },
  STILL_REFERENCED: {
    code: 'API_ERR_STATE_STILL_REFERENCED',
    status: 409,
    title: 'The item cannot be deleted while other items point at it.',
  },
  CONFLICT: { code: 'API_ERR_STATE_CONFLICT', status: 409, title: 'The write conflicts with the stored data.' },
  PRECONDITION_FAILED: {
    code: 'API_ERR_PRECONDITION_FAILED',
    status: 412,
    title: 'If-Match names no current ETag of the item (it changed since), or If-None-Match names one.',
  },
  PRECONDITION_REQUIRED: {
    code: 'API_ERR_PRECONDITION_REQUIRED',
    status: 428,
    title: 'The resource requires If-Match on writes and the request has none.',
  },
  UNAUTHENTICATED: {
    code: 'API_ERR_SECURITY_UNAUTHENTICATED',
    status: 401,
    title: 'The operation needs a user and the request carries no token.',
  },
  INVALID_TOKEN: {
    code: 'API_ERR_SECURITY_INVALID_TOKEN',
    status: 401,
    title: 'The bearer token is malformed, expired, wrongly signed, or its user is gone.',
  },
  INVALID_CREDENTIALS: {
    code: 'API_ERR_SECURITY_INVALID_CREDENTIALS',
    status: 401,
    title: 'Login with an unknown identifier or a wrong password.',
  },
  INVALID_REFRESH_TOKEN: {
    code: 'API_ERR_SECURITY_INVALID_REFRESH_TOKEN',
    status: 401,
    title: 'The refresh token is unknown, expired, revoked, or was already used (which revokes its login).',
  },
  FORBIDDEN: {
    code: 'API_ERR_SECURITY_FORBIDDEN',
    status: 403,
    title: 'The user may not perform the operation (an access rule denied it).',
  },
  TOO_MANY_REQUESTS: {
    code: 'API_ERR_RATE_LIMITED',
    status: 429,
    title: 'The client sent more requests than the rate limit allows; Retry-After says when to try again.',
  },
  TOKEN_KEYS_UNAVAILABLE: {
    code: 'API_ERR_SECURITY_KEYS_UNAVAILABLE',
    status: 503,
    title:
      'The keys bearer tokens are checked with (the JWKS URL) cannot be fetched now; Retry-After says when to try again.',
  },
  DATABASE_UNAVAILABLE: {
    code: 'API_ERR_STATE_UNAVAILABLE',
    status: 503,
    title:
      'The database cannot be reached now (down, restarting, or no free connection); Retry-After says when to try again.',
  },
  NOT_READY: {
    code: 'API_ERR_HEALTH_NOT_READY',
    status: 503,
    title: 'The service cannot take requests now: the database does not answer.',
  },
  INTERNAL: { code: 'API_ERR_INTERNAL', status: 500, title: 'An unexpected error; details are logged, never sent.' },
});

/** The name of an error of the catalog (`ERRORS`): `ROUTE_NOT_FOUND`, `ITEM_NOT_FOUND`, ... */
export type ErrorName = keyof typeof ERRORS;

/**
 * A constraint violation as API Platform reports it: the property path, Symfony's message and a stable code. The
 * validation error (`VALIDATION_FAILED`) carries a list of them; `validation/violation.ts` makes them.
 */
export interface ConstraintViolation {
  readonly propertyPath: string;
  readonly message: string;
  readonly code: string;
}

/** A request-time error: thrown by any stage, rendered by `response/render-error.ts`. */
export class ApiError extends Error {
  readonly code: string;
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly violations: readonly ConstraintViolation[] | undefined;

  constructor(
    name: ErrorName,
    detail: string,
    options: { headers?: Record<string, string>; violations?: readonly ConstraintViolation[]; cause?: unknown } = {},
  ) {
    super(detail, options.cause === undefined ? undefined : { cause: options.cause });
    const definition = ERRORS[name];
    this.name = 'ApiError';
    this.code = definition.code;
    this.status = definition.status;
    this.headers = options.headers ?? {};
    this.violations = options.violations;
  }
}

/** A mistake in the declarations, found at start-up; the message names the resource and the field. */
export class DeclarationError extends Error {
  readonly code = 'API_ERR_DECLARATION';
  constructor(message: string) {
    super(message);
    this.name = 'DeclarationError';
  }
}

/**
 * A setting that counts something (connections, seconds, levels), checked at start-up: a whole number from 1 up, or
 * left out (undefined). `unit` names what it counts in the message.
 */
export function assertCount(name: string, value: number | undefined, unit?: string): void {
  if (value === undefined || (Number.isSafeInteger(value) && value >= 1)) return;
  throw new DeclarationError(
    `${name} must be a whole number${unit ? ` of ${unit}` : ''} from 1 up, got ${String(value)}.`,
  );
}

/**
 * The database schema is behind the declarations or the migrations folder: run the migrations. Thrown at start-up and
 * by the migration commands.
 */
export class SchemaNotMigratedError extends Error {
  readonly code = 'API_ERR_SCHEMA_NOT_MIGRATED';
  constructor(message: string) {
    super(message);
    this.name = 'SchemaNotMigratedError';
  }
}
