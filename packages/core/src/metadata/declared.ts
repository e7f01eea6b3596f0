/**
 * The parts of a declaration that the metadata keeps as the user wrote them: field types, operation kinds, JSON
 * defaults, access rules, serialization and validation groups, the collection filter. Declared here, under the
 * metadata that holds them (`types.ts`); the declarations that use them are in `declare/types.ts`.
 */
import type { Condition } from './conditions.js';

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
  | 'password'
  /** An upload (`multipart/form-data`), streamed to the file storage; the column keeps its description. */
  | 'file';

/**
 * The six operations of a resource; `getCollection` and `post` live on `/api/<plural>`, the rest on
 * `/api/<plural>/{id}`.
 */
export type OperationKind = 'getCollection' | 'get' | 'post' | 'put' | 'patch' | 'delete';

/** JSON values, as accepted for defaults. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** The operation a groups function chooses for. */
export interface GroupsOperation {
  /** Its kind: `get`, `post`, ... */
  readonly kind: OperationKind;
  /** The resource's short name. */
  readonly resource: string;
  /** The operation's name, `api_books_get_collection`. */
  readonly name: string;
}

/** Context given to a groups function, to choose serialization groups per request. */
export interface GroupsContext {
  /** The operation the groups are chosen for. */
  readonly operation: GroupsOperation;
  /** The authenticated user, when access control is configured (undefined otherwise). */
  readonly user: unknown;
  /** The effective roles of the user (empty for anonymous callers). */
  readonly roles: readonly string[];
}

/** Serialization groups: a fixed list, or a function of the request (for example of the user's roles). */
export type GroupsDeclaration = readonly string[] | ((context: GroupsContext) => readonly string[]);

/**
 * Context given to a validation groups function. In `defineResource`, `T` is the item type (`InferResource`) and `D`
 * the new state before validation (`Unvalidated<InferWriteData>`).
 */
export interface ValidationGroupsContext<T extends object = Record<string, unknown>, D extends object = T>
  extends GroupsContext {
  /** The new state of the item. */
  readonly object: D;
  /** The item before the request (PUT, PATCH), or null. */
  readonly previousObject: T | null;
}

/**
 * Validation groups: a fixed list, or a function of the object and the user. Default `['Default']`.
 * (The function is a method-style type so a function typed for one resource still fits the untyped declaration.)
 */
export type ValidationGroupsDeclaration<T extends object = Record<string, unknown>, D extends object = T> =
  | readonly string[]
  | { bivarianceHack(context: ValidationGroupsContext<T, D>): readonly string[] }['bivarianceHack'];

/**
 * What an access rule function gets. In `defineResource`, `O` is the type of `object` (the item for `security`, the
 * new state before validation for `securityPostDenormalize`) and `P` that of `previousObject` (the item).
 */
export interface AccessRuleContext<O extends object = Record<string, unknown>, P extends object = O> {
  /** The authenticated user (the stored item of the user resource), or null for anonymous callers. */
  readonly user: Record<string, unknown> | null;
  /** The user's effective roles (the role hierarchy applied; `ROLE_USER` always there for users). */
  readonly roles: readonly string[];
  /**
   * Whether the user has a role (after the hierarchy), or one of Symfony's attributes: `IS_AUTHENTICATED_FULLY`,
   * `IS_AUTHENTICATED`, `PUBLIC_ACCESS`, `IS_ANONYMOUS`.
   */
  isGranted(role: string): boolean;
  /**
   * The item the operation works on: read (item operations), or the new state (post-denormalize rules); null otherwise.
   */
  readonly object: O | null;
  /** The item as it was before the request (post-denormalize rules on PUT and PATCH), or null. */
  readonly previousObject: P | null;
  /** The request: its method and path (for GraphQL, those of the REST operation the query runs). */
  readonly request: AccessRuleRequest;
}

/** The request an access rule judges. */
export interface AccessRuleRequest {
  /** The HTTP method (GraphQL: that of the REST operation the query runs; empty for field rules). */
  readonly method: string;
  /** The request path (GraphQL: the operation's URI template, `/api/books/{id}`; empty for field rules). */
  readonly path: string;
}

/**
 * An access rule: an expression in API Platform's style (`is_granted('ROLE_USER') and object.owner == user`), parsed
 * once and never evaluated as JavaScript (so not typed), or a function of the `AccessRuleContext`, whose `object` is
 * typed in `defineResource`. (The function is a method-style type so a rule typed for one resource still fits the
 * untyped declaration.)
 */
export type AccessRule<O extends object = Record<string, unknown>, P extends object = O> =
  | string
  | { bivarianceHack(context: AccessRuleContext<O, P>): boolean | Promise<boolean> }['bivarianceHack'];

/**
 * A resource's `collectionFilter`: what narrows its collection reads for a caller, as conditions (`conditions.ts`) —
 * one, a list, or nothing.
 */
export type CollectionFilter = (caller: {
  readonly user: Record<string, unknown> | null;
  readonly roles: readonly string[];
}) => Condition | readonly Condition[] | null | undefined;
