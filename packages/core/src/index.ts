/**
 * The public API of @resource-api/core. Everything else is internal.
 */

/** Declare a resource with a plain object. See docs/declaring-resources.md. */
export { defineResource } from './declare/define-resource.js';
/** Declare an input or output shape (a DTO) for custom operations. See docs/custom-operations.md. */
export { defineShape } from './declare/define-resource.js';
/**
 * Declare a resource with TC39 decorators: `@ApiResource` on the class, `@ApiProperty` on each field; `@ApiShape` for a
 * shape.
 */
export { ApiFilter, ApiProperty, ApiResource, ApiShape, Assert } from './declare/decorators.js';
export type { ApiShapeOptions, FieldFilterOptions } from './declare/decorators.js';
/**
 * The item types a declaration gives its processors, providers and rules. See
 * docs/declaring-resources.md#typed-entities.
 */
export type { IdOf, InferResource, InferShape, InferWriteData, ScalarValues, Unvalidated } from './declare/infer.js';
export type {
  ApiResourceOptions,
  BuiltinFilterDeclaration,
  DateNullMode,
  FilterDeclaration,
  OrderPropertyOptions,
  PaginationDeclaration,
  SearchStrategy,
  AccessRuleOptions,
  ClassThunk,
  CommonFieldOptions,
  CursorPaginationOptions,
  FieldDeclaration,
  GroupsOptions,
  OperationDeclaration,
  RelationOptions,
  ResourceDeclaration,
  ScalarFieldDeclaration,
  ShapeDeclaration,
  ShapeInput,
  MercureDeclaration,
  CacheHeadersDeclaration,
  SoftDeleteDeclaration,
  IdentifierDeclaration,
  ToManyDeclaration,
  SubresourceOptions,
  ToOneDeclaration,
} from './declare/types.js';
/** The parts of a declaration the metadata keeps as written: field types, operation kinds, rules, groups. */
export type {
  AccessRule,
  AccessRuleContext,
  AccessRuleRequest,
  CollectionFilter,
  GroupsContext,
  GroupsDeclaration,
  GroupsOperation,
  JsonValue,
  OperationKind,
  ScalarType,
  ValidationGroupsContext,
  ValidationGroupsDeclaration,
} from './metadata/declared.js';

/** Constraints (Symfony's), for `constraints: [...]` and `@Assert(...)`. See docs/validation.md. */
export {
  Blank,
  Callback,
  Choice,
  Count,
  DateString,
  DateTimeString,
  Email,
  EqualTo,
  File,
  GreaterThan,
  GreaterThanOrEqual,
  Image,
  IsNull,
  Length,
  LessThan,
  LessThanOrEqual,
  Negative,
  NegativeOrZero,
  NotBlank,
  NotEqualTo,
  NotNull,
  Positive,
  PositiveOrZero,
  Range,
  Regex,
  Unique,
  Url,
  UserPassword,
  Uuid,
  Valid,
} from './metadata/constraints.js';
export type {
  CallbackContext,
  ComparedValue,
  Constraint,
  ConstraintKind,
  ConstraintOptions,
  FileConstraintOptions,
  ImageConstraintOptions,
} from './metadata/constraints.js';

/** Uploads: the storage contract, the default folder storage, and what a file field holds. See docs/uploads.md. */
export { createLocalStorage } from './files/local-storage.js';
export type { FileStorage, StoredObject } from './files/file-storage.js';
export { isStoredFile, UploadedFile } from './files/uploaded-file.js';
export type { ImageDimensions, StoredFile } from './files/uploaded-file.js';

/** The Fastify plugin and its options. */
export { resourceApi } from './plugin.js';
export type { ResourceApiHandle, ResourceApiOptions, UploadOptions } from './plugin.js';

/**
 * The production plugin (CORS, security headers, rate limits, health routes, request ids, coalesced writes), registered
 * before `resourceApi`, and request ids. See docs/production.md.
 */
export { production, type ProductionOptions } from './production/production-plugin.js';
export { genRequestId } from './production/request-id.js';
export type { CoalescedWritesOptions } from './production/coalesced-writes.js';
export type { CorsOptions } from './production/cors.js';
export type { HealthOptions } from './production/health.js';
export type { RateLimitOptions, RateLimitRule } from './production/rate-limit.js';
export type { SecurityHeadersOptions } from './production/security-headers.js';
export type { TrustedHost } from './production/trusted-hosts.js';

/**
 * Real-time updates with the Mercure protocol: the plugin's `mercure` option, the built-in hub alone (`mercureHub`),
 * and the JWTs its subscribers and publishers present. See docs/real-time.md.
 */
export type { MercureHubOptions, MercureOptions } from './mercure/mercure-options.js';
export { mercureHub } from './routing/mercure-hub-plugin.js';
export { signHubToken } from './mercure/hub-tokens.js';
export type { Hub, MercureUpdate } from './mercure/hub.js';

/**
 * HTTP caching: the plugin's `httpCache` option (cache headers, cache tags, the in-process cache, shared caches purged
 * by tag). See docs/http-cache.md.
 */
export type { HttpCacheOptions } from './http-cache/http-cache-options.js';
export type { CacheTagPurger } from './http-cache/tag-purger.js';
export { createVarnishPurger, type VarnishPurgerOptions } from './http-cache/varnish-purger.js';

/** The plugin's `telemetry` option (Prometheus metrics; traces need none). See docs/telemetry.md. */
export type { MetricsOptions, TelemetryOptions } from './telemetry/telemetry-options.js';

/**
 * API documentation settings and the OpenAPI document type (for `documentation.transformOpenApi`). See
 * docs/api-docs.md.
 */
export type { DocumentationOptions, OpenApiDocument } from './openapi/build-openapi.js';
/** The OpenAPI document of a registry without a server (the one `/api/docs.json` serves), for tools such as the CLI. */
export { buildOpenApiDocument } from './openapi-document.js';
export type { OpenApiDocumentOptions } from './openapi-document.js';
/**
 * Whether a client must give a field on a write (as OpenAPI `required` says), for the validation groups in force or
 * null for any.
 */
export { isRequiredField } from './schema/required-fields.js';

/** The GraphQL schema built from the metadata, and its SDL. See docs/graphql.md. */
export { buildGraphQLSchema, printGraphQLSchema } from './graphql/build-schema.js';
export type { GraphQLOptions } from './graphql/graphql-routes.js';

/** Build the frozen metadata without starting a server (tools, tests, the CLI). */
export { buildMetadata } from './build/build-metadata.js';
export type { BuildMetadataOptions } from './build/build-metadata.js';
export type { ResourceInput } from './build/passes/collect-declarations.js';
export type {
  AccessRuleMetadata,
  FieldBase,
  FieldMetadata,
  HooksMetadata,
  HttpMethod,
  IdentifierMetadata,
  JoinTableMetadata,
  MetadataRegistry,
  OperationMetadata,
  OperationStages,
  PaginationMetadata,
  RelationBase,
  ResourceMetadata,
  MercureMetadata,
  CacheHeadersMetadata,
  ScalarFieldMetadata,
  SoftDeleteMetadata,
  SubresourceStep,
  ToManyFieldMetadata,
  ToOneFieldMetadata,
  WriteModeName,
} from './metadata/types.js';

/** The filter contract, to write a custom filter: `defineFilter({ describe, parse, conditions })`. */
export { defineFilter, invalidParameter, singleValue, valuesOf } from './query/filter.js';
export type { Filter, FilterParameter, QueryParameters } from './metadata/types.js';
/** Conditions and order terms, the data filters and `collectionFilter` return. */
export { allOf, anyOf, compare, exists, isIn, match, not, orderBy, raw } from './metadata/conditions.js';
export type {
  ComparisonOperator,
  Condition,
  MatchPattern,
  NullsPlacement,
  Order,
  OrderDirection,
  QueryNode,
} from './metadata/conditions.js';
/** A collection read's conditions and order terms, for a provider of your own. */
export { collectionQuery, type CollectionQuery } from './state/collection-query.js';

/** Persistence contracts, to plug in your own provider or processor. */
export { NestedWrite } from './metadata/types.js';
export type {
  AppliedFilter,
  CollectionPage,
  CursorRequest,
  Entity,
  ItemId,
  PageRequest,
  ParentLink,
  ProcessContext,
  ProcessNext,
  ProvideNext,
  StateCaller,
  StateContext,
  StateLogger,
  StateProcessor,
  StateProvider,
  StateRequest,
  WriteHook,
  WriteHooks,
} from './metadata/types.js';
/** The knex handle providers and processors are given (`context.db`); its types fill in `StateContext`'s handles. */
export type { DatabaseHandle } from './state/database-handles.js';
/** `StateContext`'s handles by name (`db`, `transaction`, `query`), as the built-in state fills them in. */
export type { DatabaseHandle as DatabaseHandleOf, DatabaseHandles } from './metadata/types.js';
/**
 * The built-in database provider and processor, as values: name them on an operation to read or write with the
 * database where the resource declares its own (`provider: knexProvider`). A provider or processor of yours reaches
 * them with `next`.
 */
export { knexProcessor, knexProvider } from './state/compose.js';
export { openDatabase } from './state/database.js';
export type { Database, DatabaseLog, DatabaseOptions } from './state/database.js';
/**
 * Development schema sync without a server (what the plugin does at start unless `schemaSync` is off): creates the
 * missing tables, columns, foreign keys and indexes; never drops or alters anything. For tools such as the CLI's
 * `db:sync`.
 *
 * @example
 * const database = await openDatabase({ url: 'sqlite:var/data.db' });
 * await syncSchema(database, buildMetadata({ resources: [Author, Book] }));
 * await database.close();
 */
export { syncSchema } from './state/schema-sync.js';
/**
 * Whether the built-in state keeps a resource in a table of its own: not when the resource reads and writes through
 * its own provider and processor, unless it names its `table`. Schema sync and migrations follow the same rule.
 *
 * @example
 * const stored = buildMetadata({ resources }).resources.filter(hasTable).map((resource) => resource.table);
 */
export { hasTable } from './state/migrations/desired-schema.js';

/**
 * Migrations: write a knex migration for what the database lacks, run the pending ones, undo the last batch. See
 * docs/deployment.md.
 */
export { generateMigration } from './generate-migration.js';
export type { GenerateMigrationOptions } from './generate-migration.js';
export { rollbackMigrations, runMigrations } from './state/migrations/run-migrations.js';
export type { MigrationOptions } from './state/migrations/run-migrations.js';

/** Errors: the catalog, the request-time error class, and the boot-time one. */
export { ApiError, DeclarationError, ERRORS, SchemaNotMigratedError } from './errors.js';
export type { ConstraintViolation, ErrorDefinition, ErrorName } from './errors.js';
/** The 400 ConstraintViolationList error, for violations your own processor, provider or hook finds. */
export { validationError } from './validation/violation.js';

export { DEFAULT_PAGINATION } from './query/pagination.js';
export type { PaginationOptions } from './metadata/types.js';

/** Password hashing (scrypt), as used for `password` fields. */
export { hashPassword, verifyPassword } from './security/password.js';
/** Where the login route of a `security` setting is (the CLI's generated client calls it); false for none. */
export { loginPathOf } from './security/config.js';
/** The plugin's `security` option: JWT, the user resource, roles. See docs/security.md. */
export type { JwtOptions, SecurityOptions, UserResourceOptions } from './security/config.js';
/** `app.resourceApi.provisionUser`: its options, its answer, and the refusal of an account the app did not create. */
export { AccountNotProvisionedError } from './security/provision-user.js';
export type { ProvisionedUser, ProvisionUserOptions } from './security/provision-user.js';
