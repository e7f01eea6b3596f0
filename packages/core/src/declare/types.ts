/**
 * What a user writes to declare a resource. The plain-object form (`defineResource`) takes these types as they are;
 * the decorator form (`@ApiResource`, `@ApiProperty`) collects the very same objects from a class. Both go through
 * `metadata/build-metadata.ts`, which checks them and turns them into frozen metadata.
 */
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

/** An operation with options: `{ kind: 'get' }`. The options grow with the capabilities (security, groups, ...). */
export interface OperationDeclaration {
  kind: OperationKind;
  /** Shown in OpenAPI and the Hydra documentation. */
  description?: string;
  /** Replaces the resource's state provider for this operation. */
  provider?: StateProvider;
  /** Replaces the resource's state processor for this operation. */
  processor?: StateProcessor;
}

/** A whole resource, as given to `defineResource`. */
export interface ResourceDeclaration {
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
}

/** Options of `@ApiResource`: the declaration minus what the class itself gives (name defaults to the class name). */
export type ApiResourceOptions = Partial<Omit<ResourceDeclaration, 'fields'>>;
