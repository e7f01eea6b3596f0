/**
 * The plain-object form of a declaration. It returns the declaration unchanged (typed, so later stages can infer the
 * item type from it); checking and normalizing happen in `metadata/build-metadata.ts`, shared with decorators.
 */
import type { ResourceDeclaration } from './types.js';

/**
 * Declares a resource with a plain object.
 *
 * @example
 * const Book = defineResource({
 *   name: 'Book',
 *   fields: {
 *     title: { type: 'string' },
 *     author: { toOne: 'Author', inversedBy: 'books' },
 *   },
 * });
 */
export function defineResource<const D extends ResourceDeclaration>(declaration: D): D {
  return declaration;
}
