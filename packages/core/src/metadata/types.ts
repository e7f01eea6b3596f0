/**
 * Frozen metadata: what every other folder reads. Built once from the declarations by `build-metadata.ts`; never
 * changed afterwards (every object is frozen). Which stages an operation runs is decided here, not per request.
 */
import type { JsonValue, OperationKind, ScalarType } from '../declare/types.js';
import type { Filter, OrderDirection } from '../query/filter.js';
import type { PaginationOptions } from '../query/pagination.js';
import type { StateProcessor, StateProvider } from '../state/contracts.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

interface FieldBase {
  readonly name: string;
  readonly description: string | undefined;
  readonly readable: boolean;
  readonly writable: boolean;
  readonly immutable: boolean;
  readonly nullable: boolean;
  /** The property IRI used in the JSON-LD context (`Book/title` unless declared). */
  readonly iri: string;
}

export interface ScalarFieldMetadata extends FieldBase {
  readonly kind: 'scalar';
  readonly type: ScalarType;
  readonly column: string;
  readonly default: JsonValue | undefined;
}

export interface ToOneFieldMetadata extends FieldBase {
  readonly kind: 'toOne';
  /** The target's short name. */
  readonly target: string;
  readonly inversedBy: string | undefined;
  readonly column: string;
  readonly onDelete: 'restrict' | 'cascade' | 'set null';
}

export interface ToManyFieldMetadata extends FieldBase {
  readonly kind: 'toMany';
  readonly target: string;
  /** The to-one field on the target holding the foreign key. */
  readonly mappedBy: string;
}

export type FieldMetadata = ScalarFieldMetadata | ToOneFieldMetadata | ToManyFieldMetadata;

export interface IdentifierMetadata {
  readonly name: 'id';
  readonly column: 'id';
  readonly type: 'integer';
}

/** The stages an operation runs, decided at build time. */
export interface OperationStages {
  readonly read: boolean;
  readonly deserialize: boolean;
  readonly validate: boolean;
  readonly write: boolean;
  readonly serialize: boolean;
}

/** Pagination of a collection operation, resolved global → resource → operation; the client's part comes per request. */
export interface PaginationMetadata extends PaginationOptions {
  /** Keyset pagination on the identifier, or null for page numbers. */
  readonly cursor: { readonly direction: OrderDirection } | null;
}

export interface OperationMetadata {
  readonly kind: OperationKind;
  /** A stable id, as API Platform 3 names them: `api_books_get_collection`, `api_books_id_put`. */
  readonly name: string;
  readonly resource: string;
  readonly method: HttpMethod;
  /** The URI template: `/api/books` or `/api/books/{id}`. */
  readonly uriTemplate: string;
  readonly collection: boolean;
  readonly description: string;
  /** The success status: 200, 201 or 204. */
  readonly status: 200 | 201 | 204;
  readonly stages: OperationStages;
  /** MIME types accepted in the body (empty for operations without one). */
  readonly inputFormats: readonly string[];
  /** Collection reads only; null for the other operations. */
  readonly pagination: PaginationMetadata | null;
  readonly provider: StateProvider | undefined;
  readonly processor: StateProcessor | undefined;
}

export interface ResourceMetadata {
  readonly name: string;
  readonly description: string | undefined;
  /** The path segment: `books`. */
  readonly plural: string;
  /** `/api/books`. */
  readonly collectionPath: string;
  readonly table: string;
  readonly identifier: IdentifierMetadata;
  /** Declared fields, in declaration order (the identifier is not among them). */
  readonly fields: readonly FieldMetadata[];
  readonly operations: readonly OperationMetadata[];
  /** The collection's filters, built-in and custom, in declaration order. */
  readonly filters: readonly Filter[];
  /** The order applied after the client's: `[{ path: 'createdAt', direction: 'desc' }]`; the id always comes last. */
  readonly defaultOrder: readonly { readonly path: string; readonly direction: OrderDirection }[];
  readonly provider: StateProvider | undefined;
  readonly processor: StateProcessor | undefined;
}

/** Every resource, with lookups. */
export interface MetadataRegistry {
  /** The route prefix, `/api` by default. */
  readonly prefix: string;
  readonly resources: readonly ResourceMetadata[];
  resource(name: string): ResourceMetadata;
  /** The resource whose collection path is `path` (`/api/books`), if any. */
  resourceByPath(path: string): ResourceMetadata | undefined;
}
