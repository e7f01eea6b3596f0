/**
 * What a user writes to declare a resource. The plain-object form (`defineResource`) takes these types as they are;
 * the decorator form (`@ApiResource`, `@ApiProperty`) collects the very same objects from a class. Both go through
 * `metadata/build-metadata.ts`, which checks them and turns them into frozen metadata.
 */
import type { Filter, NullsPlacement, OrderDirection } from '../query/filter.js';
import type { StateProcessor, StateProvider } from '../state/contracts.js';

/** The scalar field types. `string[]` is an array of strings stored as JSON. */
export type ScalarType =
  | 'string'
  | 'text'
  | 'integer'
  | 'float'
  | 'boolean'
  | 'datetime'
  | 'date'
  | 'json'
  | 'string[]'
  | 'password';

/** The six operations of a resource; `getCollection` and `post` live on `/api/<plural>`, the rest on `/api/<plural>/{id}`. */
export type OperationKind = 'getCollection' | 'get' | 'post' | 'put' | 'patch' | 'delete';

/** JSON values, as accepted for defaults. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** A class, referenced lazily so two resources can point at each other. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
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
  /** The column name (default: the field name in snake_case; `_id` is appended for to-one relations). */
  column?: string;
}

/** A scalar field: `{ type: 'string' }`. */
export interface ScalarFieldDeclaration extends CommonFieldOptions {
  type: ScalarType;
  /** May hold `null` (default false). */
  nullable?: boolean;
  /** The value given on create, and on PUT when the field is left out. `'now'` on a date or datetime field means the current time. */
  default?: JsonValue;
}

/** A to-one relation (many-to-one): `{ toOne: 'Author', inversedBy: 'books' }`. Stored as a foreign key column. */
export interface ToOneDeclaration extends CommonFieldOptions {
  /** The target resource: its short name, or a thunk returning its decorated class. */
  toOne: string | ClassThunk;
  /** The to-many field on the target that lists the items pointing here. */
  inversedBy?: string;
  /** May be `null` (default false). */
  nullable?: boolean;
  /** What deleting the target does to items pointing at it: refuse with 409 (default), delete them, or set null. */
  onDelete?: 'restrict' | 'cascade' | 'set null';
}

/** A to-many relation, the inverse side of a to-one: `{ toMany: 'Book', mappedBy: 'author' }`. Read-only. */
export interface ToManyDeclaration extends Omit<CommonFieldOptions, 'column' | 'immutable'> {
  /** The target resource: its short name, or a thunk returning its decorated class. */
  toMany: string | ClassThunk;
  /** The to-one field on the target that holds the foreign key. */
  mappedBy: string;
}

export type FieldDeclaration = ScalarFieldDeclaration | ToOneDeclaration | ToManyDeclaration;

/** Search strategies, as API Platform names them; the `i` variants ignore case. */
export type SearchStrategy =
  | 'exact' | 'partial' | 'start' | 'end' | 'word_start'
  | 'iexact' | 'ipartial' | 'istart' | 'iend' | 'iword_start';

/** How a date filter treats items whose date is null. */
export type DateNullMode = 'exclude_null' | 'include_null_before' | 'include_null_after' | 'include_null_before_and_after';

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
  /** `title=ver`, `title[]=a&title[]=b` (OR), `author=/api/authors/3`, `author.name=ann`. A list means `exact`. */
  | { type: 'search'; properties: Record<string, SearchStrategy> | readonly string[] }
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

/** Pagination overrides, on a resource or on its collection operation (operation wins over resource wins over global). */
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
  /** Cursor (keyset) pagination on the identifier: `?id[lt]=` / `?id[gt]=` pages whose cost does not grow with depth. */
  paginationViaCursor?: { direction: OrderDirection };
}

/** An operation with options: `{ kind: 'get' }`. The options grow with the capabilities (security, groups, ...). */
export interface OperationDeclaration extends PaginationDeclaration {
  kind: OperationKind;
  /** Shown in OpenAPI and the Hydra documentation. */
  description?: string;
  /** Replaces the resource's state provider for this operation. */
  provider?: StateProvider;
  /** Replaces the resource's state processor for this operation. */
  processor?: StateProcessor;
}

/** A whole resource, as given to `defineResource`. */
export interface ResourceDeclaration extends PaginationDeclaration {
  /** The short name, in PascalCase: `Book`. It names the JSON-LD type and, pluralized, the path. */
  name: string;
  /** The path segment (default: the plural of the name in snake_case, e.g. `categories`, `book_reviews`). */
  plural?: string;
  /** The table name (default: the name in snake_case). */
  table?: string;
  /** Shown in OpenAPI and the Hydra documentation. */
  description?: string;
  /** The fields, in the order they are rendered. The identifier `id` is generated and must not be declared. */
  fields: Record<string, FieldDeclaration>;
  /** The exposed operations (default: all six). An empty list exposes none. */
  operations?: ReadonlyArray<OperationKind | OperationDeclaration>;
  /** Loads items and collections instead of the built-in database provider. */
  provider?: StateProvider;
  /** Persists writes instead of the built-in database processor. */
  processor?: StateProcessor;
  /** The collection's filters. */
  filters?: readonly FilterDeclaration[];
  /** The default order of the collection, after any order the client asks for: `{ createdAt: 'desc' }`. */
  order?: Record<string, OrderDirection>;
}

/** Options of `@ApiResource`: the declaration minus what the class itself gives (name defaults to the class name). */
export type ApiResourceOptions = Partial<Omit<ResourceDeclaration, 'fields'>>;
