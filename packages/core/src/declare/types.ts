/**
 * What a user writes to declare a resource. The plain-object form (`defineResource`) takes these types as they are;
 * the decorator form (`@ApiResource`, `@ApiProperty`) collects the very same objects from a class. Both go through
 * `build/build-metadata.ts`, which checks them and turns them into frozen metadata. The parts the metadata keeps as
 * written (field types, operation kinds, access rules, groups) are declared under it, in `metadata/declared.ts`.
 */
import type { NullsPlacement, OrderDirection } from '../metadata/conditions.js';
import type { Constraint } from '../metadata/constraints.js';
import type {
  AccessRule,
  CollectionFilter,
  GroupsDeclaration,
  JsonValue,
  OperationKind,
  ScalarType,
  ValidationGroupsDeclaration,
} from '../metadata/declared.js';
import type { Entity, Filter, StateProcessor, StateProvider, WriteHooks } from '../metadata/types.js';

/** A class, referenced lazily so two resources can point at each other. */
// biome-ignore lint/suspicious/noExplicitAny: any class, whatever the parameters of its constructor
export type ClassThunk = () => abstract new (...args: any[]) => unknown;

/** Options shared by every kind of field. */
export interface CommonFieldOptions {
  /** Shown in OpenAPI and the Hydra documentation. */
  description?: string;
  /** Sent to clients (default true). `false` makes the field write-only. */
  readable?: boolean;
  /** Accepted from clients (default true). `false` makes the field read-only; a client value is ignored silently. */
  writable?: boolean;
  /** Accepted on create only, ignored silently on PUT and PATCH (default false). */
  immutable?: boolean;
  /** An IRI for the property in JSON-LD, e.g. `https://schema.org/name` (default `<Type>/<field>`). */
  iri?: string;
  /**
   * The column name (default: the field name in snake_case; `_id` is appended for to-one relations). Names starting
   * with `resource_api_` are reserved.
   */
  column?: string;
  /**
   * The serialization groups the field belongs to. When an operation has normalization (read) or denormalization
   * (write) groups, only fields in one of them are read or written.
   */
  groups?: readonly string[];
  /** Constraints on the field's value: `[NotBlank(), Length({ min: 3 })]`. */
  constraints?: readonly Constraint[];
  /**
   * A rule for this field alone (read and write): denied, it is left out of responses and ignored on input. Gets the
   * item as `object`; must answer synchronously.
   */
  security?: AccessRule;
}

/** Options of relation fields. */
export interface RelationOptions {
  /**
   * Embed the related item(s) as objects in responses (true) or always write IRIs (false). Default: embedded when
   * the operation's read groups include a group used on a field of the target, as API Platform decides.
   */
  readableLink?: boolean;
  /**
   * Accept nested objects on input (true) or only IRIs (false). Default: when `cascadePersist` is on, or the write
   * groups reach the target.
   */
  writableLink?: boolean;
  /**
   * The type of the target's ids (default `'integer'`): `'uuid'` when the target declares `id: 'uuid'`, so the item
   * types hold the relation as a `string`. Checked against the target when the metadata is built.
   */
  targetId?: 'integer' | 'uuid';
}

/** A scalar field: `{ type: 'string' }`. */
export interface ScalarFieldDeclaration extends CommonFieldOptions {
  /** The field type: how it is sent, stored, checked and typed (`string`, `integer`, `datetime`, ...). */
  type: ScalarType;
  /** May hold `null` (default false). */
  nullable?: boolean;
  /**
   * The value given on create, and on PUT when the field is left out. `'now'` on a date or datetime field means the
   * current time.
   */
  default?: JsonValue;
  /**
   * A computed (virtual) field: its value is this function of the item (synchronous or not), worked out when the item
   * is sent. Read-only, never a column; groups and field rules apply as to any field; filterable only through a custom
   * filter. `(book) => book.title.length`.
   */
  computed?: (item: Entity) => unknown;
  /**
   * A date-time the framework sets, read-only to clients (a value they send is ignored): `'create'` once, when the
   * item is created (`createdAt`); `'update'` when it is created and on every write of it after (`updatedAt`), custom
   * operations that write through the built-in processor (`next`) included. Set by the built-in processor as it writes
   * the row, so a processor or `beforeWrite` hook sees the previous value (null on create). Datetime fields only.
   */
  timestamp?: 'create' | 'update';
}

/** A to-one relation (many-to-one): `{ toOne: 'Author', inversedBy: 'books' }`. Stored as a foreign key column. */
export interface ToOneDeclaration extends CommonFieldOptions, RelationOptions {
  /** The target resource: its short name, or a thunk returning its decorated class. */
  toOne: string | ClassThunk;
  /** The to-many field on the target that lists the items pointing here. */
  inversedBy?: string;
  /** May be `null` (default false). */
  nullable?: boolean;
  /** What deleting the target does to items pointing at it: refuse with 409 (default), delete them, or set null. */
  onDelete?: 'restrict' | 'cascade' | 'set null';
  /**
   * A nested object without `@id` creates the related item in the same transaction (default false); in a PATCH it
   * updates the item the relation holds.
   */
  cascadePersist?: boolean;
  /**
   * A nested object runs the target's own create (POST) or update (PATCH, else PUT) rules, as a request of its own
   * would; a target without such an operation cannot be written through a relation (403). `true` lets this relation
   * create and update items of such a target, under the rules of the item that holds it only (default false).
   */
  nestedWithoutOperation?: boolean;
  /**
   * A relation to the user resource filled with the caller on create: `'always'` (the client's value is ignored, on
   * create and on update) or `'default'` (when the client gives none; writable otherwise — guard it with a rule).
   */
  currentUser?: 'always' | 'default';
  /**
   * A relation to the user resource the framework sets to the caller, read-only to clients (a value they send is
   * ignored): `'create'` once, when the item is created (`createdBy`); `'update'` when it is created and on every write
   * of it after (`updatedBy`). An anonymous write sets null, so the relation needs `nullable: true`. Set by the
   * built-in processor as it writes the row, as `timestamp` is.
   */
  blame?: 'create' | 'update';
}

/** Exposes a to-many relation as `GET /api/<parents>/{id}/<field>`, a collection of the target. */
export interface SubresourceOptions {
  /**
   * How many subresource levels may follow from here: `/api/authors/{id}/books/{books}/reviews` is depth 2 (default 1).
   */
  maxDepth?: number;
  /** The subresource's own access rule (default: the target collection's). */
  security?: AccessRule;
  /** Its 403 message. */
  securityMessage?: string;
}

/**
 * A to-many relation.
 * - With `mappedBy` naming a to-one of the target: the inverse side of a one-to-many (`Author.books`), read-only.
 * - Without `mappedBy`: the owning side of a many-to-many, stored in a join table, writable as an array of IRIs
 *   (`Book.tags`); its inverse side has `mappedBy` naming this field (`Tag.books`), read-only.
 */
export interface ToManyDeclaration extends Omit<CommonFieldOptions, 'column' | 'immutable'>, RelationOptions {
  /** The target resource: its short name, or a thunk returning its decorated class. */
  toMany: string | ClassThunk;
  /** The field on the target that owns the relation (a to-one, or the owning side of a many-to-many). */
  mappedBy?: string;
  /** Many-to-many owning side: the inverse to-many field on the target. */
  inversedBy?: string;
  /** Many-to-many owning side: the join table (default `<table>_<field>` in snake_case). */
  joinTable?: string;
  /** Expose `GET /api/<parents>/{id}/<field>` (true, or options). */
  subresource?: boolean | SubresourceOptions;
}

/** A field: a scalar (`type`), a to-one (`toOne`) or a to-many (`toMany`), told apart by that key. */
export type FieldDeclaration = ScalarFieldDeclaration | ToOneDeclaration | ToManyDeclaration;

/** Search strategies, as API Platform names them; the `i` variants ignore case. */
export type SearchStrategy =
  | 'exact'
  | 'partial'
  | 'start'
  | 'end'
  | 'word_start'
  | 'iexact'
  | 'ipartial'
  | 'istart'
  | 'iend'
  | 'iword_start';

/** How a date filter treats items whose date is null. */
export type DateNullMode =
  | 'exclude_null'
  | 'include_null_before'
  | 'include_null_after'
  | 'include_null_before_and_after';

/** Per-property options of an order filter. */
export interface OrderPropertyOptions {
  /** The direction used when the parameter is given without a value (default `asc`). */
  direction?: OrderDirection;
  /** Where nulls go (default `largest`: last in ascending order, first in descending). */
  nulls?: NullsPlacement;
}

/**
 * A built-in filter, declared on the resource (`filters: [...]`) or, with decorators, `@ApiFilter(...)` on the class.
 * Properties are field names or relation paths (`author.name`).
 */
export type BuiltinFilterDeclaration =
  /**
   * `title=ver`, `title[]=a&title[]=b` (OR), `author=/api/authors/3`, `author.name=ann`. A list means `exact`.
   * `substringIndex: true` gives the text properties searched by substring (every strategy but `exact`/`iexact`) a
   * trigram index: an FTS5 trigram table on SQLite, a pg_trgm GIN index on PostgreSQL. Searches of 3 characters or
   * more then read the index instead of every row; results are the same.
   */
  | { type: 'search'; properties: Record<string, SearchStrategy> | readonly string[]; substringIndex?: boolean }
  /** `price[gt]=`, `[gte]`, `[lt]`, `[lte]`, `[between]=10..20`, on numbers and dates. */
  | { type: 'range'; properties: readonly string[] }
  /** `createdAt[after]=`, `[before]`, `[strictly_after]`, `[strictly_before]`. */
  | { type: 'date'; properties: readonly string[] | Record<string, DateNullMode> }
  /** `available=true|false`. */
  | { type: 'boolean'; properties: readonly string[] }
  /** `pages=3`, `pages[]=3&pages[]=4`. */
  | { type: 'numeric'; properties: readonly string[] }
  /** `exists[body]=true|false`. */
  | { type: 'exists'; properties: readonly string[] }
  /** `order[title]=asc|desc`, several combined in the order given. */
  | { type: 'order'; properties: readonly string[] | Record<string, OrderPropertyOptions> };

/** A filter: a built-in one by its declaration, or a custom object implementing the `Filter` contract. */
export type FilterDeclaration = BuiltinFilterDeclaration | Filter;

/**
 * Access rules of a resource (for all its operations) or of one operation (replacing the resource's for it). `T` is
 * the item type and `U` the new state before validation (see `InferResource`, `Unvalidated`).
 */
export interface AccessRuleOptions<T extends object = Entity, U extends object = T> {
  /**
   * Checked before the write (after the read, with `object`, on item operations). Denied: 401 anonymous, 403 otherwise.
   */
  security?: AccessRule<T>;
  /** The 403 message when `security` denies (default `Access Denied.`). */
  securityMessage?: string;
  /**
   * Checked after the body is applied, with `object` (new state, not validated yet: any field may still be null) and
   * `previousObject`: guards owner fields.
   */
  securityPostDenormalize?: AccessRule<U, T>;
  /** The 403 message when `securityPostDenormalize` denies. */
  securityPostDenormalizeMessage?: string;
}

/** Groups of a resource or an operation (the operation's win). `T` and `U` type the validation groups function. */
export interface GroupsOptions<T extends object = Entity, U extends object = T> {
  /** Read groups: only fields in one of them are sent (relations to targets in them are embedded). */
  normalizationGroups?: GroupsDeclaration;
  /** Write groups: only fields in one of them are accepted; the rest is ignored silently. */
  denormalizationGroups?: GroupsDeclaration;
  /**
   * Validation groups: only constraints in one of them run (default `['Default']`, which holds constraints without
   * groups).
   */
  validationGroups?: ValidationGroupsDeclaration<T, U>;
}

/** Options of cursor pagination. */
export interface CursorPaginationOptions {
  /** The order of the ids the pages follow: `asc` (oldest first) or `desc` (newest first). */
  direction: OrderDirection;
}

/**
 * Pagination overrides, on a resource or on its collection operation (operation wins over resource wins over global).
 */
export interface PaginationDeclaration {
  /** Paginate the collection (global default true). */
  paginationEnabled?: boolean;
  /** Items per page (global default 10). */
  paginationItemsPerPage?: number;
  /** The largest `itemsPerPage` a client may ask for; larger values are clamped (global default 100). */
  paginationMaximumItemsPerPage?: number;
  /** Clients may switch pagination with `?pagination=false|true` (global default true). */
  paginationClientEnabled?: boolean;
  /** Clients may choose `itemsPerPage` (global default true). */
  paginationClientItemsPerPage?: boolean;
  /** Partial pagination: no count query, no `hydra:totalItems`, no first/last links (global default false). */
  paginationPartial?: boolean;
  /** Clients may ask for partial pagination with `?partial=true` (global default false). */
  paginationClientPartial?: boolean;
  /**
   * Cursor (keyset) pagination on the identifier: `?id[lt]=` / `?id[gt]=` pages whose cost does not grow with depth.
   */
  paginationViaCursor?: CursorPaginationOptions;
  /** GraphQL: the collection query as a Relay cursor connection (default) or page-based (`page`, `itemsPerPage`). */
  paginationType?: 'cursor' | 'page';
}

/**
 * An operation with options: `{ kind: 'get' }`. The options grow with the capabilities (security, groups, ...). `T`,
 * `D` and `U` type its processor and rules (see `ResourceDeclaration`).
 */
export interface OperationDeclaration<T extends object = Entity, D extends object = T, U extends object = D>
  extends PaginationDeclaration,
    GroupsOptions<T, U>,
    AccessRuleOptions<T, U> {
  /**
   * Which of the six operations: `getCollection`, `post`, `get`, `put`, `patch` or `delete`. For a custom operation
   * (with `name` and `uriTemplate`), the kind it is built on: its HTTP method, whether it reads a page
   * (`getCollection`), writes (not `get`), deletes (`delete`).
   */
  kind: OperationKind;
  /**
   * A custom operation's name, in camelCase (`publish`): it names the operation in OpenAPI
   * (`api_articles_id_publish_post`), Hydra and GraphQL (`publishArticle`; a read: `authorStats`). Needs `uriTemplate`.
   */
  name?: string;
  /**
   * A custom operation's path under the prefix, API Platform style: `/articles/{id}/publish`. `{id}` is the
   * resource's identifier: the item is read (404 when missing) before the rules that look at it. Other variables are
   * for the operation's own provider or processor (`context.uriVariables`). Needs `name`.
   */
  uriTemplate?: string;
  /**
   * What the body is: `false` for none (nothing is read from it), a shape (`defineShape`) whose fields are
   * deserialized and validated, or, by default, the resource's writable fields.
   */
  input?: false | ShapeInput;
  /** What the response is: `false` for none (204), a shape, or, by default, the resource's item. */
  output?: false | ShapeInput;
  /** The success status (default: 201 for a POST creating an item, 204 without output, else 200). */
  status?: number;
  /** Write hooks of this operation, run after the resource's own. */
  hooks?: WriteHooks<T>;
  /** Shown in OpenAPI and the Hydra documentation. */
  description?: string;
  /**
   * Replaces the resource's state provider for this operation. (Not typed by `T`: a provider receives no item, and
   * what it returns is not checked, so that one written for plain `Entity` objects fits every resource.)
   */
  provider?: StateProvider;
  /** Replaces the resource's state processor for this operation. */
  processor?: StateProcessor<T, D>;
  /**
   * Publishes this write operation's writes to the Mercure hub (`true`, or options), replacing the resource's
   * `mercure`; `false` publishes nothing for it. See docs/real-time.md.
   */
  mercure?: boolean | MercureDeclaration<T>;
  /**
   * HTTP cache headers of this operation's responses, key by key over the resource's `cacheHeaders`; `false`: always
   * `private, no-store`. See docs/http-cache.md.
   */
  cacheHeaders?: false | CacheHeadersDeclaration;
}

/**
 * A whole resource, as given to `defineResource`. `T` is the item type, `D` the new state a processor receives and
 * `U` the new state before validation (post-denormalize rules, validation groups functions): `defineResource` infers
 * them from `fields` (`InferResource`, `InferWriteData`, `Unvalidated`), so the functions of the declaration get typed
 * objects. Untyped, all three are `Entity`. (Three parameters rather than `Unvalidated<D>` inside: plain parameters
 * keep a declaration typed for one resource assignable to the untyped one.)
 */
export interface ResourceDeclaration<T extends object = Entity, D extends object = T, U extends object = D>
  extends PaginationDeclaration,
    GroupsOptions<T, U>,
    AccessRuleOptions<T, U> {
  /** The short name, in PascalCase: `Book`. It names the JSON-LD type and, pluralized, the path. */
  name: string;
  /** The path segment (default: the plural of the name in snake_case, e.g. `categories`, `book_reviews`). */
  plural?: string;
  /** The table name (default: the name in snake_case). */
  table?: string;
  /** Shown in OpenAPI and the Hydra documentation. */
  description?: string;
  /**
   * The identifier `id`: an auto-increment integer (`'integer'`, the default) or a UUID (`'uuid'`: version 7, made by
   * the framework; `{ type: 'uuid', generatedBy: 'database' }`: made by the column's default, version 4). It is
   * generated, read-only, and never declared among the fields.
   */
  id?: IdentifierDeclaration;
  /** The fields, in the order they are rendered. The identifier `id` is generated and must not be declared. */
  fields: Record<string, FieldDeclaration>;
  /** The exposed operations (default: all six). An empty list exposes none. */
  operations?: ReadonlyArray<OperationKind | OperationDeclaration<T, D, U>>;
  /** Loads items and collections instead of the built-in database provider (not typed by `T`, as on operations). */
  provider?: StateProvider;
  /** Persists writes instead of the built-in database processor. */
  processor?: StateProcessor<T, D>;
  /**
   * Code run around every write of the resource: `beforeWrite` and `afterWrite` inside the write's transaction (a
   * throw rolls it back), `afterCommit` once the commit succeeded (a throw is logged, the response stays).
   */
  hooks?: WriteHooks<T>;
  /** The collection's filters. */
  filters?: readonly FilterDeclaration[];
  /** The default order of the collection, after any order the client asks for: `{ createdAt: 'desc' }`. */
  order?: Record<string, OrderDirection>;
  /** Constraints on the whole item: `Unique({ fields: ['a', 'b'] })`, `Callback(...)`. */
  constraints?: readonly Constraint[];
  /**
   * Narrows every collection read of the resource (subresources too) to what the caller may see, on the page and the
   * count: the conditions it returns (`conditions.ts`) are ANDed with the filters'. Nothing, or an empty list: no
   * narrowing. `({ user, roles }) => (roles.includes('ROLE_ADMIN') ? [] : [compare('owner', '=', user?.id ?? 0)])`.
   */
  collectionFilter?: CollectionFilter;
  /**
   * PUT, PATCH and DELETE must carry `If-Match` with the item's ETag (from its GET): without it they get 428, with a
   * stale one 412. Every client then proves it saw the latest state before changing it (default false: If-Match is
   * optional, and checked when sent). GraphQL mutations cannot send it, so they are refused on such a resource.
   */
  requireIfMatch?: boolean;
  /**
   * The JSON-LD `@type` of the items, as API Platform's `types`: `['https://schema.org/MediaObject']` (default: the
   * resource's name). Several types give an array. The Hydra documentation keeps the class named after the resource.
   */
  types?: readonly string[];
  /**
   * DELETE keeps the item and stamps a date-time field instead (`true`: `deletedAt`; a string: that field's name; or
   * `{ field, list, restore }`). From then on the item answers 404 and is left out of every read: collections,
   * subresources, counts, relations, GraphQL, Unique checks (and unique indexes become partial). A `list` rule lets the
   * callers it grants read the deleted items with `?deleted=true` (403 for the others); a `restore` rule gives the
   * resource `PATCH /api/<plural>/{id}/restore`, which brings a deleted item back. Default: DELETE removes the row.
   */
  softDelete?: boolean | string | SoftDeleteDeclaration;
  /**
   * Real-time updates: after each write of an item commits, an update goes to the Mercure hub, topic the item's
   * absolute IRI, data the item as its GET renders it (`{"@id", "@type"}` after a DELETE). `true`, or options
   * (`{ private: true, topics }`). Default: nothing is published. See docs/real-time.md.
   */
  mercure?: boolean | MercureDeclaration<T>;
  /**
   * HTTP cache headers of the resource's reads (`{ public, maxAge, sharedMaxAge, staleWhileRevalidate, vary }`), over
   * the plugin's `httpCache.defaults`; `false`: always `private, no-store`. A response to a caller with credentials, or
   * of an operation with an access rule, is `private, no-store` unless `public: true` is declared. See
   * docs/http-cache.md.
   */
  cacheHeaders?: false | CacheHeadersDeclaration;
}

/**
 * `cacheHeaders`: the `Cache-Control` directives (seconds) and the extra `Vary` of a resource's or an operation's
 * responses. `Vary` always holds `Accept` and `Authorization`.
 */
export interface CacheHeadersDeclaration {
  /**
   * `true`: shared caches may keep it, even for a caller with credentials or an operation with an access rule (say it
   * only when the response is the same for every caller). `false`: `private`. Default: public when safe.
   */
  public?: boolean;
  /** `max-age`: how long a browser keeps it. */
  maxAge?: number;
  /** `s-maxage`: how long a shared cache (the in-process cache, Varnish, a CDN) keeps it. */
  sharedMaxAge?: number;
  /** `stale-while-revalidate`. */
  staleWhileRevalidate?: number;
  /** `stale-if-error`. */
  staleIfError?: number;
  /** More request headers the response varies on. */
  vary?: readonly string[];
}

/** `mercure` in full: how the updates of a resource's (or an operation's) writes are published. */
export interface MercureDeclaration<T extends object = Entity> {
  /**
   * Private updates: the hub dispatches them only to subscribers whose JWT `mercure.subscribe` claim matches one of
   * their topics (default false: every subscriber of a matching topic receives them).
   */
  private?: boolean;
  /**
   * Topics published to beside the item's IRI (which stays the first): absolute IRIs or URI paths (made absolute with
   * the request's origin), or a function of the item returning them (`(book) => ['/api/authors/' + book.author]`).
   */
  // A method's parameter is bivariant: a declaration typed for one resource stays assignable to the untyped one.
  topics?: readonly string[] | { bivarianceHack(item: T): readonly string[] }['bivarianceHack'];
  /** The server-sent event's `event` field (default none: clients get a `message` event). */
  type?: string;
  /** The server-sent event's `retry` field: the milliseconds a client waits before reconnecting. */
  retry?: number;
}

/** A resource's identifier: `'integer'` (default), `'uuid'`, or a UUID made by the database. */
export type IdentifierDeclaration =
  | 'integer'
  | 'uuid'
  | { readonly type: 'uuid'; readonly generatedBy?: 'framework' | 'database' };

/** `softDelete` in full: the field stamped on DELETE, who may list the deleted items, and who may restore one. */
export interface SoftDeleteDeclaration {
  /**
   * The nullable date-time field set on DELETE (default `deletedAt`); declared by the framework when not in `fields`.
   */
  field?: string;
  /**
   * Who may list the deleted items with `?deleted=true`: an access rule (`"is_granted('ROLE_ADMIN')"`). Without one,
   * the parameter does not exist.
   */
  list?: AccessRule;
  /** The 403 message when `list` denies (default `Access Denied.`). */
  listMessage?: string;
  /**
   * Who may restore a deleted item: an access rule judged with `object` = the deleted item
   * (`"is_granted('ROLE_ADMIN')"`). With one, the resource gets the custom operation `restore`,
   * `PATCH /api/<plural>/{id}/restore` (no body; 200 with the item as GET renders it; 409 when it is not deleted; the
   * GraphQL mutation `restore<Resource>`). Without one, there is no such route.
   */
  restore?: AccessRule;
  /** The 403 message when `restore` denies (default `Access Denied.`). */
  restoreMessage?: string;
}

/**
 * An input or output shape (a DTO): typed scalar fields with constraints and groups, no table, no operation of its
 * own. `defineShape({ name: 'AuthorStats', fields: { bookCount: { type: 'integer' } } })`.
 */
export interface ShapeDeclaration {
  /** The short name, in PascalCase: it is the JSON-LD `@type`, the OpenAPI schema and the GraphQL type. */
  name: string;
  /** Shown in OpenAPI and the Hydra documentation. */
  description?: string;
  /** The fields (scalars only), in the order they are rendered. */
  fields: Record<string, ScalarFieldDeclaration>;
  /** Constraints on the whole shape (`Callback(...)`). */
  constraints?: readonly Constraint[];
}

/** A shape: a `defineShape` object, or a class decorated with `@ApiShape`. */
// biome-ignore lint/suspicious/noExplicitAny: any class, whatever the parameters of its constructor
export type ShapeInput = ShapeDeclaration | (abstract new (...args: any[]) => unknown);

/** Options of `@ApiResource`: the declaration minus what the class itself gives (name defaults to the class name). */
export type ApiResourceOptions = Partial<Omit<ResourceDeclaration, 'fields'>>;
