/**
 * The public API of @resource-api/core. Everything else is internal.
 */

/** Declare a resource with a plain object. See docs/declaring-resources.md. */
export { defineResource } from './declare/define-resource.js';
/** Declare a resource with TC39 decorators: `@ApiResource` on the class, `@ApiProperty` on each field. */
export { ApiFilter, ApiProperty, ApiResource } from './declare/decorators.js';
export type { FieldFilterOptions } from './declare/decorators.js';
export type {
  ApiResourceOptions,
  BuiltinFilterDeclaration,
  DateNullMode,
  FilterDeclaration,
  OrderPropertyOptions,
  PaginationDeclaration,
  SearchStrategy,
  ClassThunk,
  CommonFieldOptions,
  FieldDeclaration,
  JsonValue,
  OperationDeclaration,
  OperationKind,
  ResourceDeclaration,
  ScalarFieldDeclaration,
  ScalarType,
  ToManyDeclaration,
  ToOneDeclaration,
} from './declare/types.js';

/** The Fastify plugin and its options. */
export { resourceApi } from './plugin.js';
export type { ResourceApiHandle, ResourceApiOptions } from './plugin.js';

/** Build the frozen metadata without starting a server (tools, tests, the CLI). */
export { buildMetadata } from './metadata/build-metadata.js';
export type { BuildMetadataOptions } from './metadata/build-metadata.js';
export type { ResourceInput } from './metadata/passes/collect-declarations.js';
export type {
  FieldMetadata,
  HttpMethod,
  IdentifierMetadata,
  MetadataRegistry,
  OperationMetadata,
  OperationStages,
  PaginationMetadata,
  ResourceMetadata,
  ScalarFieldMetadata,
  ToManyFieldMetadata,
  ToOneFieldMetadata,
} from './metadata/types.js';

/** The filter contract, to write a custom filter: `defineFilter({ describe, parse, apply })`. */
export { defineFilter, invalidParameter, singleValue, valuesOf } from './query/filter.js';
export type { Filter, FilterParameter, FilterQuery, MatchPattern, NullsPlacement, OrderDirection, QueryParameters } from './query/filter.js';

/** Persistence contracts, to plug in your own provider or processor. */
export type { AppliedFilter, CollectionPage, CursorRequest, Entity, PageRequest, StateContext, StateProcessor, StateProvider } from './state/contracts.js';
export { openDatabase } from './state/database.js';
export type { Database, DatabaseOptions } from './state/database.js';

/** Errors: the catalog, the request-time error class, and the boot-time one. */
export { ApiError, DeclarationError, ERRORS } from './errors.js';
export type { ErrorDefinition, ErrorName } from './errors.js';
export type { ConstraintViolation } from './validation/violation.js';

export { DEFAULT_PAGINATION } from './query/pagination.js';
export type { PaginationOptions } from './query/pagination.js';

/** Password hashing (scrypt), as used for `password` fields. */
export { hashPassword, verifyPassword } from './security/password.js';
