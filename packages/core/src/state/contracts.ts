/**
 * The persistence contracts. A state provider reads (an item, or a page of a collection); a state processor writes
 * (create, replace, update, delete). The built-in ones talk to the database through knex; a resource or an operation
 * can declare its own. REST and GraphQL both reach the data only through these two contracts.
 */
import type { Knex } from 'knex';
import type { OperationMetadata, ResourceMetadata, ToManyFieldMetadata, ToOneFieldMetadata } from '../metadata/types.js';
import type { Filter } from '../query/filter.js';

/**
 * An item as the framework handles it between stages: field name → value. Scalars are JS values (a `Date` for a
 * datetime, `YYYY-MM-DD` for a date), a to-one relation is the target's id (or null), a to-many one an array of ids.
 */
export type Entity = Record<string, unknown> & { id?: number };

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
    readonly id: number | undefined,
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
  readonly related?: ReadonlyMap<string, ReadonlyMap<number, Entity>>;
}

/** Keyset pagination on the identifier: items after or before a given id, in the resource's cursor direction. */
export interface CursorRequest {
  readonly direction: 'asc' | 'desc';
  /** `id[gt]`: items with a greater id. */
  readonly greaterThan: number | undefined;
  /** `id[lt]`: items with a smaller id. */
  readonly lessThan: number | undefined;
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
  readonly id: number;
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
  /** The identifier from the URI, already checked to be a positive integer (item operations only). */
  readonly id: number | undefined;
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
  readonly db: Knex;
  /** The write's transaction (processors and hooks of operations that write inside one), else undefined. */
  readonly transaction?: Knex.Transaction;
  /**
   * Runs one INSERT, UPDATE or DELETE built with `db` and returns its rows (with `.returning(...)`). Outside a
   * transaction on SQLite, it shares its commit with the other writes of the same turn of the event loop, as the
   * built-in processor's writes do (one disk sync for all): the way for an `afterCommit` hook to write a row cheaply.
   * Inside a transaction it runs there, as awaiting the query would.
   */
  execute<T = Record<string, unknown>>(query: Knex.QueryBuilder): Promise<T[]>;
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
export type WriteHook<T extends object = Entity> = { bivarianceHack(item: T, context: ProcessContext<T>): void | Promise<void> }['bivarianceHack'];

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
