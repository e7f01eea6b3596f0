/**
 * Frozen metadata: what every other folder reads. Built once from the declarations by `build-metadata.ts`; never
 * changed afterwards (every object is frozen). Which stages an operation runs is decided here, not per request.
 */
import type { Constraint } from './constraints.js';
import type { Filter, OrderDirection } from '../query/filter.js';
import type { PaginationOptions } from '../query/pagination.js';
import type { Entity, StateProcessor, StateProvider, WriteHook } from '../state/contracts.js';
import type { AccessRule, CollectionFilter, GroupsDeclaration, JsonValue, OperationKind, ScalarType, ValidationGroupsDeclaration } from './declared.js';

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
  /** The serialization groups the field belongs to (empty: none). */
  readonly groups: readonly string[];
  /** Constraints on the field's value. */
  readonly constraints: readonly Constraint[];
  /** The field's own access rule (read and write), or undefined. */
  readonly security: AccessRule | undefined;
}

interface RelationBase extends FieldBase {
  /** The target's short name. */
  readonly target: string;
  /** Forced embedding (true) or IRIs (false); undefined: decided by the groups. */
  readonly readableLink: boolean | undefined;
  /** Forced acceptance of nested objects (true) or IRIs only (false); undefined: decided by cascadePersist and groups. */
  readonly writableLink: boolean | undefined;
}

export interface ScalarFieldMetadata extends FieldBase {
  readonly kind: 'scalar';
  readonly type: ScalarType;
  /** The column; empty for a computed field (it has none). */
  readonly column: string;
  readonly default: JsonValue | undefined;
  /** A computed field's function of the item (read-only, no column), or undefined. */
  readonly computed: ((item: Entity) => unknown) | undefined;
}

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
}

/** The join table of a many-to-many relation, seen from the side that declares the field. */
export interface JoinTableMetadata {
  readonly table: string;
  /** The column holding this side's id. */
  readonly ownColumn: string;
  /** The column holding the target's id. */
  readonly targetColumn: string;
}

export interface ToManyFieldMetadata extends RelationBase {
  readonly kind: 'toMany';
  /** One-to-many: the to-one field on the target holding the foreign key. Many-to-many inverse side: the owning field. */
  readonly mappedBy: string | undefined;
  /** Many-to-many owning side: the inverse field on the target, if any. */
  readonly inversedBy: string | undefined;
  /** Many-to-many (either side): the join table; undefined for one-to-many. */
  readonly joinTable: JoinTableMetadata | undefined;
  /** Exposed as a subresource, with how many levels may follow from here and its own access rule. */
  readonly subresource: { readonly maxDepth: number; readonly security?: AccessRule; readonly securityMessage?: string } | null;
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
 * How the deserializer applies a body onto the item: a new item from defaults (`create`), a full replacement (`replace`,
 * PUT) or a partial update (`update`, PATCH and custom item operations).
 */
export type WriteModeName = 'create' | 'replace' | 'update';

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
  /** The body's shape when the operation declares one (`input`); null: the resource's fields, or no body (`stages.deserialize`). */
  readonly input: ResourceMetadata | null;
  /** The response's shape when the operation declares one (`output`); null: the resource, or no body (`stages.serialize`). */
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
  readonly provider: StateProvider | undefined;
  readonly processor: StateProcessor | undefined;
}

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
  readonly operations: readonly OperationMetadata[];
  /** The collection's filters, built-in and custom, in declaration order. */
  readonly filters: readonly Filter[];
  /** Narrows collection reads to what the caller may see, or undefined. */
  readonly collectionFilter: CollectionFilter | undefined;
  /** PUT, PATCH and DELETE need `If-Match` (428 without it). */
  readonly requireIfMatch: boolean;
  /** Constraints on the whole item (Unique on several fields, Callback). */
  readonly constraints: readonly Constraint[];
  /** The order applied after the client's: `[{ path: 'createdAt', direction: 'desc' }]`; the id always comes last. */
  readonly defaultOrder: readonly { readonly path: string; readonly direction: OrderDirection }[];
  readonly provider: StateProvider | undefined;
  readonly processor: StateProcessor | undefined;
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
