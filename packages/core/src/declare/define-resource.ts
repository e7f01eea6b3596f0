/**
 * The plain-object form of a declaration. It returns the declaration unchanged (typed, so later stages can infer the
 * item type from it); checking and normalizing happen in `build/build-metadata.ts`, shared with decorators.
 */
import type { ItemOf, Unvalidated, WriteDataOf } from './infer.js';
import type { FieldDeclaration, ResourceDeclaration, ScalarFieldDeclaration, ShapeDeclaration } from './types.js';

/** The `id` options that give UUIDs (the first overload: items with string ids). */
type UuidDeclaration = 'uuid' | { readonly type: 'uuid'; readonly generatedBy?: 'framework' | 'database' };

/**
 * Declares a resource with a plain object. The item type is inferred from `fields` (see `InferResource`), so a
 * `processor`, `provider`, access rule function or validation groups function written in the declaration gets typed
 * objects without annotations. This form takes `id: 'uuid'` (or `{ type: 'uuid', … }`): the items' `id` is a
 * `string`; the next one, integer ids.
 *
 * @example
 * const Book = defineResource({
 *   name: 'Book',
 *   fields: {
 *     title: { type: 'string' },
 *     author: { toOne: 'Author', inversedBy: 'books' },
 *   },
 *   // object: { id: number; title: string; author: number } | null
 *   security: ({ object, user }) => object === null || object.title !== '',
 * });
 */
export function defineResource<
  // Two parameters: `F` is inferred from `fields` first, then fixes the types the functions of `D` are checked with.
  const F extends Record<string, FieldDeclaration>,
  const D extends ResourceDeclaration<ItemOf<F, string>, WriteDataOf<F, string>, Unvalidated<WriteDataOf<F, string>>>,
>(declaration: D & { readonly fields: F; readonly id: UuidDeclaration }): D;
/** Declares a resource with integer ids (the default): its items' `id` is a `number`. See the overload above. */
export function defineResource<
  const F extends Record<string, FieldDeclaration>,
  const D extends ResourceDeclaration<ItemOf<F>, WriteDataOf<F>, Unvalidated<WriteDataOf<F>>>,
>(declaration: D & { readonly fields: F }): D;
export function defineResource(declaration: ResourceDeclaration): ResourceDeclaration {
  return declaration;
}

/**
 * Declares an input or output shape (a DTO) for custom operations: scalar fields with types, constraints and groups,
 * as a resource's, but no table and no operation. Its item type is inferred as a resource's (`InferShape`).
 *
 * @example
 * const AuthorStats = defineShape({
 *   name: 'AuthorStats',
 *   fields: { bookCount: { type: 'integer' }, latestBookTitle: { type: 'string', nullable: true } },
 * });
 */
export function defineShape<const F extends Record<string, ScalarFieldDeclaration>, const D extends ShapeDeclaration>(
  declaration: D & { readonly fields: F },
): D {
  return declaration;
}
