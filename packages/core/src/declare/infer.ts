/**
 * The TypeScript types of items, computed from a declaration's fields, so that processors, providers and access rules
 * written for a resource get typed objects without annotations. They describe what the runtime hands over: the
 * built-in state reads scalars into JS values (`state/dialects`), relations into ids (`state/knex/row-mapper.ts`), and
 * the deserializer turns IRIs into ids and nested objects into `NestedWrite`s (`serializer/denormalize.ts`).
 *
 * Kept flat on purpose (one conditional type per field, no recursion): they are evaluated for every declaration.
 */
import type { JsonValue, ScalarType } from '../metadata/declared.js';
import type { Entity, NestedWrite } from '../metadata/types.js';
import type { StoredFile } from '../files/uploaded-file.js';

/** The JS value of each scalar type, as processors receive it and the built-in provider reads it. */
export interface ScalarValues {
  string: string;
  text: string;
  integer: number;
  float: number;
  boolean: boolean;
  /** A `Date` (the wire format is RFC 3339; the item holds the parsed date). */
  datetime: Date;
  /** A `YYYY-MM-DD` string (no time zone, so no `Date`). */
  date: string;
  /** Any JSON value but a top-level `null` (that is the field being null). */
  json: NonNullable<JsonValue>;
  'string[]': string[];
  /** The scrypt hash: passwords are hashed before a processor sees them, and the hash is what is stored and read. */
  password: string;
  /** The stored file's description (`name`, `size`, `mimeType`, `originalName`); an upload before the write stage. */
  file: StoredFile;
}

/** `| null` when the field declares `nullable: true` (or a `boolean` that may be true). */
type NullIfNullable<F> = F extends { nullable: infer N } ? (true extends N ? null : never) : never;

/**
 * A to-one's `data` may hold a nested write when nested objects are accepted: `writableLink` decides when given, else
 * `cascadePersist` (`schema/input-schema.ts`, `acceptsNested`; the write groups case is not known here).
 */
type NestedIfWritableLink<F> = F extends { writableLink: infer W }
  ? true extends W
    ? NestedWrite
    : never
  : F extends { cascadePersist: infer C }
    ? true extends C
      ? NestedWrite
      : never
    : never;

type ToManyKeys<F> = { [K in keyof F]: F[K] extends { toMany: unknown } ? K : never }[keyof F];

/** A relation's value: the target's id, a string when the relation declares `targetId: 'uuid'`. */
type RelationId<F> = F extends { targetId: 'uuid' } ? string : number;

/** The type of `id` for a resource's `id` option: a string for UUIDs, else a number. */
export type IdOf<I> = I extends 'uuid' | { readonly type: 'uuid' } ? string : number;

/** The value of one declared field in an item as read: a scalar's JS value, a to-one's target id. */
type ReadValue<F> = F extends { type: infer S extends ScalarType }
  ? ScalarValues[S] | NullIfNullable<F>
  : F extends { toOne: unknown }
    ? RelationId<F> | NullIfNullable<F>
    : never;

/**
 * The value of one declared field in the new state a processor receives: as read, plus nested writes on to-ones. A
 * timestamp is stamped by the built-in processor as it writes: before, a new item has none yet (null).
 */
type WriteValue<F> = F extends { toOne: unknown }
  ? RelationId<F> | NullIfNullable<F> | NestedIfWritableLink<F>
  : F extends { timestamp: 'create' | 'update' }
    ? Date | null
    : ReadValue<F>;

/** Fields declared without literal names (a `Record<string, FieldDeclaration>`) give plain `Entity` objects. */
type IfLiteralKeys<F, T> = string extends keyof F ? Entity : T;

/**
 * The item type of a `fields` object. To-many relations are arrays of target ids, optional: the built-in provider
 * loads them for an item read, but collection reads load only those they need, and a POST's new state has no inverse
 * side (`mappedBy`) yet.
 */
type ItemOfFields<F, Id> = IfLiteralKeys<
  F,
  { id: Id } & { -readonly [K in Exclude<keyof F, ToManyKeys<F>>]: ReadValue<F[K]> } & {
    -readonly [K in ToManyKeys<F>]?: RelationId<F[K]>[];
  }
>;

/** The new-state type of a `fields` object: `id` is undefined on POST, and to-ones may hold nested writes. */
type WriteDataOfFields<F, Id> = IfLiteralKeys<
  F,
  { id?: Id } & { -readonly [K in Exclude<keyof F, ToManyKeys<F>>]: WriteValue<F[K]> } & {
    -readonly [K in ToManyKeys<F>]?: RelationId<F[K]>[];
  }
>;

/** Flattens an intersection for readable hovers and messages (`Entity` stays as it is). */
type Flat<T> = string extends keyof T ? T : { [K in keyof T]: T[K] };

/**
 * The TypeScript type of a resource's items: `InferResource<typeof Book>` for `const Book = defineResource({...})`.
 * It is what a provider returns, what a processor gets as `context.previous`, and what an access rule gets as
 * `object`:
 *
 * - `id: number` (`string` for a resource with `id: 'uuid'`), then every declared field;
 * - `string`, `text`, `password` (the hash) and `date` (`YYYY-MM-DD`) are strings, `integer` and `float` numbers,
 *   `boolean` booleans, `datetime` a `Date`, `json` any JSON value, `string[]` a string array;
 * - `nullable: true` adds `| null`;
 * - a to-one is the target's id (`number`, or `string` when it declares `targetId: 'uuid'`); a to-many an optional
 *   array of ids (not every read loads it).
 *
 * A decorated class gives its own instance type with `id` (a `number`, unless the class declares `id` itself, as
 * `id!: string` for UUIDs): its annotations are trusted as written (write relations as ids there to match what the
 * runtime hands over).
 *
 * @example
 * const Book = defineResource({ name: 'Book', fields: { title: { type: 'string' }, price: { type: 'float', nullable: true } } });
 * type BookItem = InferResource<typeof Book>; // { id: number; title: string; price: number | null }
 */
export type InferResource<R> = R extends { readonly fields: infer F }
  ? ItemOf<F, IdOf<R extends { readonly id: infer I } ? I : undefined>>
  : R extends abstract new (
        ...args: never[]
      ) => infer I
    ? Flat<(I extends { id: unknown } ? unknown : { id: number }) & I>
    : never;

/**
 * The new state a processor receives as `data` (and a post-denormalize access rule as `object`):
 * `InferResource<typeof Book>` except that `id` is undefined on POST, and that a to-one with `cascadePersist: true`
 * or `writableLink: true` may hold a `NestedWrite` (the nested item to persist first) instead of an id.
 *
 * A to-one left without `writableLink` also accepts nested objects when the operation's write groups reach the
 * target; declare `writableLink: true` on such a relation for the type to say so.
 */
export type InferWriteData<R> = R extends { readonly fields: infer F }
  ? WriteDataOf<F, IdOf<R extends { readonly id: infer I } ? I : undefined>>
  : R extends abstract new (
        ...args: never[]
      ) => infer I
    ? Flat<I extends { id: infer Id } ? Omit<I, 'id'> & { id?: Id } : { id?: number } & I>
    : never;

/**
 * The new state before validation, as post-denormalize access rules, validation groups functions and the
 * registration hook (`onRegister`) see it: like `InferWriteData`, except that any field may still be `null` (left
 * out, or refused for its JSON type; validation then reports it). Values that are there have their types.
 *
 * @example
 * onRegister: (user: Unvalidated<InferWriteData<typeof User>>) => { ... }
 */
export type Unvalidated<D> = string extends keyof D ? D : { [K in keyof D]: K extends 'id' ? D[K] : D[K] | null };

/**
 * The values of a shape (`defineShape`): what a processor gets as `data` from an input shape, and what a provider or
 * processor returns for an output shape. Its fields, typed as a resource's, without `id`.
 *
 * @example
 * const AuthorStats = defineShape({ name: 'AuthorStats', fields: { bookCount: { type: 'integer' } } });
 * type Stats = InferShape<typeof AuthorStats>; // { bookCount: number }
 */
export type InferShape<S> = S extends { readonly fields: infer F }
  ? string extends keyof F
    ? Entity
    : Flat<{ -readonly [K in keyof F]: ReadValue<F[K]> }>
  : S extends abstract new (
        ...args: never[]
      ) => infer I
    ? I
    : never;

/** `InferResource` of a `fields` object, for `defineResource`. */
export type ItemOf<F, Id = number> = Flat<ItemOfFields<F, Id>>;
/** `InferWriteData` of a `fields` object, for `defineResource`. */
export type WriteDataOf<F, Id = number> = Flat<WriteDataOfFields<F, Id>>;
