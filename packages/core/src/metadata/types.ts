/**
 * Frozen metadata: what every other folder reads. Built once from the declarations by `build/build-metadata.ts`;
 * never changed afterwards (every object is frozen). Which stages an operation runs is decided here, not per request.
 *
 * With it, in the same file because each refers to the other, the contracts of the code the metadata holds: the
 * filter contract (a resource's filters) and the persistence contracts (its providers, processors and write hooks,
 * each handed the operation's metadata). The metadata and these contracts import nothing but the model beside them
 * (`declared.ts`, `conditions.ts`, `constraints.ts`); the database handles a provider is given are filled in by the
 * state (`DatabaseHandles`), so no database library is named here.
 */
import type { OrderDirection, QueryNode } from './conditions.js';
import type { Constraint } from './constraints.js';
import type {
  AccessRule,
  CollectionFilter,
  GroupsDeclaration,
  JsonValue,
  OperationKind,
  ScalarType,
  ValidationGroupsDeclaration,
} from './declared.js';

/** The HTTP methods of the operations. */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** What the metadata of every field has, whatever its kind. */
export interface FieldBase {
  readonly name: string;
  readonly description: string | undefined;
  readonly readable: boolean;
  readonly writable: boolean;
  readonly immutable: boolean;
  readonly nullable: boolean;
  /** The property IRI used in the JSON-LD context (`Book/title` unless declared). */
  readonly iri: string;
  /** The serialization groups the field belongs to (empty: none). */
  readonly groups: readonly string[];
  /** Constraints on the field's value. */
  readonly constraints: readonly Constraint[];
  /** The field's own access rule (read and write), or undefined. */
  readonly security: AccessRule | undefined;
}

/** What the metadata of a relation field (to-one or to-many) has beside the common part. */
export interface RelationBase extends FieldBase {
  /** The target's short name. */
  readonly target: string;
  /** Forced embedding (true) or IRIs (false); undefined: decided by the groups. */
  readonly readableLink: boolean | undefined;
  /**
   * Forced acceptance of nested objects (true) or IRIs only (false); undefined: decided by cascadePersist and groups.
   */
  readonly writableLink: boolean | undefined;
}

/** A scalar field's metadata (`kind: 'scalar'`). */
export interface ScalarFieldMetadata extends FieldBase {
  readonly kind: 'scalar';
  readonly type: ScalarType;
  /** The column; empty for a computed field (it has none). */
  readonly column: string;
  readonly default: JsonValue | undefined;
  /** A computed field's function of the item (read-only, no column), or undefined. */
  readonly computed: ((item: Entity) => unknown) | undefined;
  /**
   * Set by the built-in processor to the time of the write: on create (`'create'`), or on create and update
   * (`'update'`).
   */
  readonly timestamp: 'create' | 'update' | undefined;
}

/** A to-one relation's metadata (`kind: 'toOne'`): the foreign key column on this resource's table. */
export interface ToOneFieldMetadata extends RelationBase {
  readonly kind: 'toOne';
  readonly inversedBy: string | undefined;
  readonly column: string;
  readonly onDelete: 'restrict' | 'cascade' | 'set null';
  /** A nested object without `@id` creates the related item. */
  readonly cascadePersist: boolean;
  /**
   * A nested object may create (update) the target even though it has no POST (PATCH or PUT) operation whose rules
   * would run: the relation is the way such items are written. False: refused with 403.
   */
  readonly nestedWithoutOperation: boolean;
  /** Filled with the caller on create: always, or when the client gives none. */
  readonly currentUser: 'always' | 'default' | undefined;
  /**
   * Set by the built-in processor to the caller (null when anonymous): on create (`'create'`), or on create and update
   * (`'update'`).
   */
  readonly blame: 'create' | 'update' | undefined;
}

/** The join table of a many-to-many relation, seen from the side that declares the field. */
export interface JoinTableMetadata {
  readonly table: string;
  /** The column holding this side's id. */
  readonly ownColumn: string;
  /** The column holding the target's id. */
  readonly targetColumn: string;
}

/** A to-many relation's metadata (`kind: 'toMany'`): one-to-many, or either side of a many-to-many. */
export interface ToManyFieldMetadata extends RelationBase {
  readonly kind: 'toMany';
  /**
   * One-to-many: the to-one field on the target holding the foreign key. Many-to-many inverse side: the owning field.
   */
  readonly mappedBy: string | undefined;
  /** Many-to-many owning side: the inverse field on the target, if any. */
  readonly inversedBy: string | undefined;
  /** Many-to-many (either side): the join table; undefined for one-to-many. */
  readonly joinTable: JoinTableMetadata | undefined;
  /** Exposed as a subresource, with how many levels may follow from here and its own access rule. */
  readonly subresource: {
    readonly maxDepth: number;
    readonly security?: AccessRule;
    readonly securityMessage?: string;
  } | null;
}

/** A field's metadata, told apart by `kind`. */
export type FieldMetadata = ScalarFieldMetadata | ToOneFieldMetadata | ToManyFieldMetadata;

/**
 * The identifier of a resource, always named `id`: an auto-increment integer (the default), or a UUID (`id: 'uuid'`)
 * made by the framework (version 7, ordered by creation time) or by the database's column default.
 */
export interface IdentifierMetadata {
  readonly name: 'id';
  readonly column: 'id';
  readonly type: 'integer' | 'uuid';
  /** Who makes a new item's id: the database (auto-increment, or the uuid column's default) or the framework. */
  readonly generatedBy: 'database' | 'framework';
}

/** An item's id: a positive integer, or a UUID in its canonical lower-case form. */
export type ItemId = number | string;

/** The stages an operation runs, decided at build time. */
export interface OperationStages {
  readonly read: boolean;
  readonly deserialize: boolean;
  readonly validate: boolean;
  readonly write: boolean;
  readonly serialize: boolean;
}

/** The plugin's global pagination settings (`pagination: { … }`); resources and collection operations override them. */
export interface PaginationOptions {
  /** Collections are paginated (default true). */
  readonly enabled: boolean;
  /** Clients may turn pagination off and on with `?pagination=false|true` (default true). */
  readonly clientEnabled: boolean;
  /** Clients may choose the page size with `?itemsPerPage=` (default true). */
  readonly clientItemsPerPage: boolean;
  /** The page size (default 10). */
  readonly itemsPerPage: number;
  /** The largest page size a client may ask for; larger values are clamped (default 100). */
  readonly maximumItemsPerPage: number;
  /** Partial pagination: no count, no `hydra:totalItems`, no first/last links (default false). */
  readonly partial: boolean;
  /** Clients may ask for partial pagination with `?partial=true` (default false). */
  readonly clientPartial: boolean;
  /** The page number's query parameter (default `page`). */
  readonly pageParameterName: string;
  /** The page size's query parameter (default `itemsPerPage`). */
  readonly itemsPerPageParameterName: string;
  /** The query parameter that turns pagination off and on (default `pagination`). */
  readonly enabledParameterName: string;
  /** The query parameter that asks for partial pagination (default `partial`). */
  readonly partialParameterName: string;
}

/**
 * Pagination of a collection operation, resolved global → resource → operation; the client's part comes per request.
 */
export interface PaginationMetadata extends PaginationOptions {
  /** Keyset pagination on the identifier, or null for page numbers. */
  readonly cursor: { readonly direction: OrderDirection } | null;
  /** GraphQL collection queries: Relay cursor connections, or page-based. */
  readonly type: 'cursor' | 'page';
}

/** One step of a subresource path: the parent resource, its to-many field, and the URI variable of its id. */
export interface SubresourceStep {
  readonly resource: string;
  readonly field: string;
  readonly variable: string;
}

/** An access rule of an operation with its denial message. */
export interface AccessRuleMetadata {
  readonly rule: AccessRule;
  /** The 403 message (default `Access Denied.`). */
  readonly message: string;
}

/** The write hooks of an operation, its resource's first, in the order they run. Empty lists: no hook. */
export interface HooksMetadata {
  readonly beforeWrite: readonly WriteHook[];
  readonly afterWrite: readonly WriteHook[];
  readonly afterCommit: readonly WriteHook[];
}

/**
 * How the deserializer applies a body onto the item: a new item from defaults (`create`), a full replacement
 * (`replace`, PUT) or a partial update (`update`, PATCH and custom item operations).
 */
export type WriteModeName = 'create' | 'replace' | 'update';

/** An operation, resolved at build time: its path, method, stages, groups, rules and state. */
export interface OperationMetadata {
  /**
   * The six declared kinds, plus `getSubresource` for `GET /api/<parents>/{id}/<relation>`. A custom operation has
   * the kind it is built on (`customName` tells it apart).
   */
  readonly kind: OperationKind | 'getSubresource';
  /** A custom operation's declared name (`publish`); null for the built-in operations and subresources. */
  readonly customName: string | null;
  /** The variables of the URI template, in order (`['id']`). */
  readonly uriVariables: readonly string[];
  /**
   * The body's shape when the operation declares one (`input`); null: the resource's fields, or no body
   * (`stages.deserialize`).
   */
  readonly input: ResourceMetadata | null;
  /**
   * The response's shape when the operation declares one (`output`); null: the resource, or no body
   * (`stages.serialize`).
   */
  readonly output: ResourceMetadata | null;
  /** How the body is applied onto the item (operations that deserialize the resource's fields), else null. */
  readonly writeMode: WriteModeName | null;
  /** Write hooks (the resource's, then the operation's). */
  readonly hooks: HooksMetadata;
  /** A stable id, as API Platform 3 names them: `api_books_get_collection`, `api_books_id_put`. */
  readonly name: string;
  readonly resource: string;
  readonly method: HttpMethod;
  /** The URI template: `/api/books` or `/api/books/{id}`. */
  readonly uriTemplate: string;
  readonly collection: boolean;
  readonly description: string;
  /** The success status: 200, 201 or 204 for the built-in operations; a custom one may declare another 2xx. */
  readonly status: number;
  readonly stages: OperationStages;
  /** MIME types accepted in the body (empty for operations without one). */
  readonly inputFormats: readonly string[];
  /** Collection reads only; null for the other operations. */
  readonly pagination: PaginationMetadata | null;
  /** Read groups (operation's, else the resource's), or null for none. */
  readonly normalizationGroups: GroupsDeclaration | null;
  /** Write groups (operation's, else the resource's), or null for none. */
  readonly denormalizationGroups: GroupsDeclaration | null;
  /** Validation groups (operation's, else the resource's, else `['Default']`). */
  readonly validationGroups: ValidationGroupsDeclaration;
  /** The operation's access rule (its own, else the resource's), or null: no rule, anyone may call it. */
  readonly security: AccessRuleMetadata | null;
  /** The rule checked after the body is applied, or null. */
  readonly securityPostDenormalize: AccessRuleMetadata | null;
  /** Subresource operations: the path from the outermost parent to this collection; null otherwise. */
  readonly subresource: readonly SubresourceStep[] | null;
  /**
   * The `restore` operation of a soft-deleted resource (`softDelete.restore`): its read finds the item deleted or not,
   * it checks the item's Unique constraints against the live items, and its write clears the deletion field.
   */
  readonly restores: boolean;
  readonly provider: StateProvider | undefined;
  readonly processor: StateProcessor | undefined;
  /**
   * Write operations whose writes are published to the Mercure hub: how (the operation's, else the resource's); null:
   * not published.
   */
  readonly mercure: MercureMetadata | null;
  /**
   * The `cacheHeaders` declared for the operation (its own keys over its resource's), or null when neither declares
   * any: the plugin's `httpCache.defaults` then apply. Only GETs answered to anonymous callers are ever shared.
   */
  readonly cacheHeaders: CacheHeadersMetadata | null;
}

/** Cache headers as declared (`cacheHeaders`), checked: what `Cache-Control` and `Vary` a cacheable response gets. */
export interface CacheHeadersMetadata {
  /** `false` was declared: every response of the operation is `private, no-store`. */
  readonly noStore: boolean;
  /** `public` (true), `private` (false), or not said (public when the response may be shared). */
  readonly public: boolean | undefined;
  readonly maxAge: number | undefined;
  readonly sharedMaxAge: number | undefined;
  readonly staleWhileRevalidate: number | undefined;
  readonly staleIfError: number | undefined;
  /** Request headers the response varies on, beside `Accept` and `Authorization` (always there). */
  readonly vary: readonly string[];
}

/**
 * How the writes of an operation (or, for items written through a relation, of a resource) are published to Mercure.
 */
export interface MercureMetadata {
  /** Updates dispatched only to subscribers whose JWT allows one of their topics. */
  readonly private: boolean;
  /** Topics beside the item's IRI: IRIs or paths, or a function of the stored item giving them. */
  readonly topics: readonly string[] | ((item: Entity) => readonly string[]);
  /** The server-sent event's `event` field, or undefined. */
  readonly type: string | undefined;
  /** The server-sent event's `retry` field, or undefined. */
  readonly retry: number | undefined;
}

/** A resource (or a shape), resolved at build time: its names, table, fields and operations. */
export interface ResourceMetadata {
  readonly name: string;
  /** An input or output shape (`defineShape`): fields only, no table, no operation, no IRI of its own. */
  readonly shape: boolean;
  /**
   * Whether the built-in state keeps the items in `table`: not for a resource with both its own provider and its own
   * processor (they serve it alone), unless it names its `table` (they then go over the built-in ones, reached with
   * `next`); never for a shape.
   */
  readonly stored: boolean;
  readonly description: string | undefined;
  /** The path segment: `books`. */
  readonly plural: string;
  /** `/api/books`. */
  readonly collectionPath: string;
  readonly table: string;
  readonly identifier: IdentifierMetadata;
  /** Declared fields, in declaration order (the identifier is not among them). */
  readonly fields: readonly FieldMetadata[];
  /** The same fields by name: look a field up here rather than searching `fields`. */
  readonly fieldsByName: ReadonlyMap<string, FieldMetadata>;
  readonly operations: readonly OperationMetadata[];
  /** The collection's filters, built-in and custom, in declaration order. */
  readonly filters: readonly Filter[];
  /** Narrows collection reads to what the caller may see, or undefined. */
  readonly collectionFilter: CollectionFilter | undefined;
  /** PUT, PATCH and DELETE need `If-Match` (428 without it). */
  readonly requireIfMatch: boolean;
  /** The items' JSON-LD `@type`: the declared `types`, or `[name]`. */
  readonly types: readonly string[];
  /** DELETE stamps a date-time field instead of removing the row (`softDelete`), or null. */
  readonly softDelete: SoftDeleteMetadata | null;
  /** Constraints on the whole item (Unique on several fields, Callback). */
  readonly constraints: readonly Constraint[];
  /** The order applied after the client's: `[{ path: 'createdAt', direction: 'desc' }]`; the id always comes last. */
  readonly defaultOrder: readonly { readonly path: string; readonly direction: OrderDirection }[];
  /**
   * The resource's own `mercure` (not its operations'): how items of it written through a relation of another
   * resource (`cascadePersist`) are published; null: they are not.
   */
  readonly mercure: MercureMetadata | null;
  readonly provider: StateProvider | undefined;
  readonly processor: StateProcessor | undefined;
}

/**
 * A soft-deleted resource: DELETE sets `field` (column `column`) to the time; every read of the built-in state leaves
 * out the items where it is set. `filter` is the collection's `deleted` parameter (always applied: without
 * `?deleted=true` it keeps the live items only); `list` the rule a caller must meet to ask for the deleted ones.
 */
export interface SoftDeleteMetadata {
  readonly field: string;
  readonly column: string;
  readonly list: AccessRuleMetadata | null;
  readonly filter: Filter;
}

/** Every resource, with lookups. */
export interface MetadataRegistry {
  /** The route prefix, `/api` by default. */
  readonly prefix: string;
  /** The global pagination settings (the plugin's `pagination` over the defaults), for lists no operation pages. */
  readonly pagination: PaginationOptions;
  readonly resources: readonly ResourceMetadata[];
  /** The input and output shapes operations declare, each once. */
  readonly shapes: readonly ResourceMetadata[];
  resource(name: string): ResourceMetadata;
  /** The resource whose collection path is `path` (`/api/books`), if any. */
  resourceByPath(path: string): ResourceMetadata | undefined;
}

// The filter contract. A filter describes the query parameters it reads (for `hydra:search` and OpenAPI), parses
// their values (a bad value is a 400 naming the parameter, raised before anything is read), and says how it narrows or
// orders the collection as data: conditions and order terms over property paths (`conditions.ts`), which the state
// compiles (relation paths of any depth, bound values only). The built-in filters (search, range, date, boolean,
// numeric, exists, order: `query/filters/`) implement this same contract; `query/filter.ts` has its helpers.

/** The query string as parsed: `order[title]` and `title[]` are literal keys. */
export type QueryParameters = Readonly<Record<string, string | string[] | undefined>>;

/** One query parameter a filter reads, as Hydra's `IriTemplateMapping` and OpenAPI describe it. */
export interface FilterParameter {
  /** The parameter name: `title`, `title[]`, `price[gte]`, `order[title]`. */
  readonly variable: string;
  /** The property it acts on (a path such as `author.name`), or null for a free-form parameter. */
  readonly property: string | null;
  readonly required: boolean;
  /** The JSON Schema type of one value. */
  readonly schema: {
    readonly type: 'string' | 'integer' | 'number' | 'boolean';
    readonly enum?: readonly string[];
    readonly format?: string;
  };
  /** Several values may be given (`title[]=a&title[]=b`). */
  readonly isCollection: boolean;
  readonly description: string;
}

/** A filter of a resource's collection. `P` is what `parse` reads from the query string and `conditions` takes. */
export interface Filter<P = unknown> {
  /** The query parameters it reads. */
  describe(resource: ResourceMetadata): readonly FilterParameter[];
  /** Reads its parameters from the query; undefined when none of them is given. Throws 400 for invalid values. */
  parse(query: QueryParameters, resource: ResourceMetadata): P | undefined;
  /**
   * What `parse` read, as conditions and order terms (`conditions.ts`): data the state compiles, never SQL but `raw`.
   */
  conditions(parsed: P, resource: ResourceMetadata): readonly QueryNode[];
  /** Property paths whose columns deserve an index (schema sync creates them): equality, range and order filters. */
  readonly indexedPaths?: readonly string[];
  /** Property paths of text columns that deserve a trigram (substring) index: search filters with `substringIndex`. */
  readonly substringIndexedPaths?: readonly string[];
}

// The persistence contracts. A state provider reads (an item, or a page of a collection); a state processor writes
// (create, replace, update, delete). The built-in ones talk to the database through knex (`state/`); a resource or an
// operation can declare its own. REST and GraphQL both reach the data only through these two contracts.

/**
 * An item as the framework handles it between stages: field name → value. Scalars are JS values (a `Date` for a
 * datetime, `YYYY-MM-DD` for a date), a to-one relation is the target's id (or null), a to-many one an array of ids.
 */
export type Entity = Record<string, unknown> & { id?: ItemId };

/**
 * A related item written together with its owner (a nested object on a cascading relation): created when `id` is
 * undefined, updated otherwise. Processors persist it first and store its id in the owner's relation.
 */
export class NestedWrite {
  constructor(
    /** The related resource's short name. */
    readonly resource: string,
    /** Its new state. */
    readonly data: Entity,
    /** The id of the item to update; undefined to create one. */
    readonly id: ItemId | undefined,
    /** The item to update as it was read (null when creating one): what its new state is compared with. */
    readonly previous: Entity | null = null,
  ) {}
}

/** A page of a collection; `T` is the item type (see `InferResource`). */
export interface CollectionPage<T extends object = Entity> {
  readonly items: readonly T[];
  /** The number of items over all pages; undefined with partial or cursor pagination (no count is made). */
  readonly totalItems: number | undefined;
  /** Partial and cursor pagination: whether more items follow in the direction read. */
  readonly hasMore?: boolean;
  /**
   * Related items read with the page (the context's `embed`): resource name → id → item, as the serializer would read
   * them. It embeds them without reading them again.
   */
  readonly related?: ReadonlyMap<string, ReadonlyMap<ItemId, Entity>>;
}

/** Keyset pagination on the identifier: items after or before a given id, in the resource's cursor direction. */
export interface CursorRequest {
  readonly direction: 'asc' | 'desc';
  /** `id[gt]`: items with a greater id. */
  readonly greaterThan: ItemId | undefined;
  /** `id[lt]`: items with a smaller id. */
  readonly lessThan: ItemId | undefined;
}

/** What the pagination stage decided for a collection read. `null` when pagination is off. */
export interface PageRequest {
  readonly page: number;
  readonly itemsPerPage: number;
  readonly offset: number;
  /** No count: read one item more than the page to know whether another page follows. */
  readonly partial: boolean;
  readonly cursor: CursorRequest | null;
}

/** One parent of a subresource read: `/api/authors/3/books` has `{ resource: Author, field: books, id: 3 }`. */
export interface ParentLink {
  readonly resource: ResourceMetadata;
  readonly field: ToManyFieldMetadata;
  readonly id: ItemId;
}

/** A filter with the values it parsed from the query, to apply to the collection query. */
export interface AppliedFilter {
  readonly filter: Filter;
  readonly parsed: unknown;
}

/** Who is calling: the stored user (null for anonymous callers) and their effective roles. */
export interface StateCaller {
  readonly user: Entity | null;
  readonly roles: readonly string[];
}

/** The request behind an operation, as providers, processors and hooks see it (GraphQL: its HTTP request). */
export interface StateRequest {
  /** The HTTP method (GraphQL: that of the REST operation the query runs). */
  readonly method: string;
  /** The path without query string (GraphQL: the operation's URI template). */
  readonly path: string;
  /** The request's headers, names in lower case. */
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** The client's address (behind a trusted proxy, from `X-Forwarded-For`). */
  readonly ip: string;
  /** The request id (the one echoed in `X-Request-Id` and logged as `reqId`). */
  readonly id: string;
}

/** A logger with pino's levels: the request's own, so lines carry its request id. */
export interface StateLogger {
  error(object: unknown, message?: string): void;
  warn(object: unknown, message?: string): void;
  info(object: unknown, message?: string): void;
  debug(object: unknown, message?: string): void;
}

/**
 * The database handles of the persistence contracts: `db`, `transaction` and a write `query`. Empty here, so the
 * metadata names no database library; the built-in state fills it in with knex's types
 * (`state/database-handles.ts`).
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled in by declaration merging from state/
export interface DatabaseHandles {}

/** One of the database handles, as the state declared it. */
export type DatabaseHandle<K extends string> = K extends keyof DatabaseHandles ? DatabaseHandles[K] : unknown;

/** What a provider or processor is told about the operation it serves. */
export interface StateContext {
  readonly operation: OperationMetadata;
  readonly resource: ResourceMetadata;
  /** Who is calling. */
  readonly caller: StateCaller;
  /** The request. */
  readonly request: StateRequest;
  /** The request's logger. */
  readonly logger: StateLogger;
  /** The raw URI variables of the path (`{ id: '3' }`; a custom operation's own variables too). */
  readonly uriVariables: Readonly<Record<string, string | undefined>>;
  /** The identifier from the URI, already checked to be one of the resource's ids (item operations only). */
  readonly id: ItemId | undefined;
  /** The page to read (collection operations with pagination on), or null. */
  readonly page: PageRequest | null;
  /** The filters the query string asked for, parsed (collection operations). */
  readonly filters: readonly AppliedFilter[];
  /**
   * Subresource reads: the parents from the outermost, each with its to-many field and id. The provider reads the
   * items of the last parent's field, and returns null when a parent does not exist or does not hold the next one.
   */
  readonly parents: readonly ParentLink[];
  /**
   * The database, for providers and processors that want to run their own queries. Inside a write's transaction
   * (processors and `beforeWrite` / `afterWrite` hooks) it is that transaction: use it, not another connection, so
   * your queries commit or roll back with the write (on SQLite, another connection would wait for the transaction).
   */
  readonly db: DatabaseHandle<'db'>;
  /** The write's transaction (processors and hooks of operations that write inside one), else undefined. */
  readonly transaction?: DatabaseHandle<'transaction'>;
  /**
   * Runs one INSERT, UPDATE or DELETE built with `db` and returns its rows (with `.returning(...)`). Outside a
   * transaction on SQLite, it shares its commit with the other writes of the same turn of the event loop, as the
   * built-in processor's writes do (one disk sync for all): the way for an `afterCommit` hook to write a row cheaply.
   * Inside a transaction it runs there, as awaiting the query would.
   */
  execute<T = Record<string, unknown>>(query: DatabaseHandle<'query'>): Promise<T[]>;
  /**
   * A declared resource's values (by field name, `id` too) as its table's row on this database, for a row written
   * with `db`: column names, and values stored as the framework stores them (a `datetime` from a `Date`, booleans,
   * JSON), so one query works on SQLite, PostgreSQL and MariaDB alike. Throws for an unknown resource or a name that
   * is not a stored field of it.
   */
  toRow(resource: string, values: Readonly<Record<string, unknown>>): Record<string, unknown>;
  /**
   * Collection reads: the to-one fields whose items the response embeds and that need nothing but their own row
   * (HTTP), or that the GraphQL query selects on the items. A provider may read them with the page (the built-in one
   * joins them) and return them in the page's `related`; the serializer, or GraphQL's loaders, read the others, one
   * batch per relation.
   */
  readonly embed?: readonly ToOneFieldMetadata[];
}

/**
 * Reads items for a resource or an operation. `T` is the item type: inside `defineResource` it is inferred from the
 * fields (`InferResource`); declared on its own, a provider handles plain `Entity` objects.
 */
export interface StateProvider<T extends object = Entity> {
  /**
   * Item operations: the item or null (404). Collection operations: a page (null: a subresource's parent is missing).
   * `next` reads with the provider this one is declared over (an operation's: the resource's, else the built-in one;
   * a resource's: the built-in one), with this context or another.
   */
  provide(context: StateContext, next: ProvideNext): Promise<T | null | CollectionPage<T>>;
}

/** Reads with the provider under this one; at most once per call. */
export type ProvideNext = (context?: StateContext) => Promise<Entity | null | CollectionPage>;

/**
 * What a processor is told: the operation, and the item as read before the write. `T` is the item type
 * (`InferResource` of the resource; `Entity` when untyped).
 */
export interface ProcessContext<T extends object = Entity> extends StateContext {
  /** The item as the read stage loaded it (PUT, PATCH, DELETE), or null. */
  readonly previous: T | null;
  /**
   * Lost-update protection (the request's `If-Match` held against this item): write only if the stored item still
   * equals `expected`, checked atomically with the write, else throw `new ApiError('PRECONDITION_FAILED', …)`. The
   * built-in processor locks the row in its transaction and compares; a processor of your own should do the same
   * (or its writes are only as safe as the check made before the write). Undefined: no such condition.
   */
  readonly expected?: T;
}

/**
 * Writes items for a resource or an operation. Inside `defineResource` its types are inferred from the fields: `T`,
 * the item as read (`InferResource`), and `D`, the new state handed over as `data` (`InferWriteData`: no `id` on
 * POST, a to-one may hold a `NestedWrite`). Declared on its own, it handles plain `Entity` objects.
 */
export interface StateProcessor<T extends object = Entity, D extends object = T> {
  /**
   * Persists `data` (the new state; for DELETE the item read; with an input shape, the shape's values). Returns the
   * stored item as it should be rendered (or the output shape's values), or nothing for a DELETE. The result is any
   * `Entity`, not checked against `T`: that keeps an untyped processor acceptable wherever a typed one is.
   * `next` writes with the processor under this one (an operation's: the resource's, else the built-in one; a
   * resource's: the built-in one), in the same transaction; it may be called once, or not at all.
   */
  process(data: D, context: ProcessContext<T>, next: ProcessNext): Promise<Entity | void>;
}

/** Writes with the processor under this one, in the same transaction; at most once per call. */
export type ProcessNext = (data?: Entity, context?: ProcessContext) => Promise<Entity | void>;

/**
 * A write hook: called with the item (`beforeWrite`: the new state; `afterWrite` and `afterCommit`: the stored item,
 * or for a DELETE the item as it was) and the context of the write.
 */
export type WriteHook<T extends object = Entity> = {
  bivarianceHack(item: T, context: ProcessContext<T>): void | Promise<void>;
}['bivarianceHack'];

/**
 * Code run around a write. `beforeWrite` and `afterWrite` run inside the write's transaction (`context.db` is it):
 * a throw rolls everything back (an `ApiError` is its answer, anything else a logged 500). `afterCommit` runs once the
 * commit succeeded, before the response is sent; a throw there is logged and changes nothing. Each takes a function or
 * a list, run in order; a resource's hooks run before its operation's.
 */
export interface WriteHooks<T extends object = Entity> {
  beforeWrite?: WriteHook<T> | readonly WriteHook<T>[];
  afterWrite?: WriteHook<T> | readonly WriteHook<T>[];
  afterCommit?: WriteHook<T> | readonly WriteHook<T>[];
}
