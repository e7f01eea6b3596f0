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

/** What a provider or processor is told about the operation it serves. */
export interface StateContext {
  readonly operation: OperationMetadata;
  readonly resource: ResourceMetadata;
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
  /** The database, for providers and processors that want to run their own queries. */
  readonly db: Knex;
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
  /** Item operations: the item or null (404). Collection operations: a page (null: a subresource's parent is missing). */
  provide(context: StateContext): Promise<T | null | CollectionPage<T>>;
}

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
   * Persists `data` (the new state; for DELETE the item read). Returns the stored item as it should be rendered, or
   * nothing for a DELETE. The result is any `Entity`, not checked against `T`: that keeps an untyped processor
   * acceptable wherever a typed one is.
   */
  process(data: D, context: ProcessContext<T>): Promise<Entity | void>;
}
