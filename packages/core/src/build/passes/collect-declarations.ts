/**
 * Pass 1: turn what the user passed (plain declarations and decorated classes) into plain declarations, and check
 * the resource-level options: known keys, a PascalCase short name, no duplicate short name or path.
 */
import { readDeclaration } from '../../declare/decorators.js';
import type { ResourceDeclaration } from '../../declare/types.js';
import { DeclarationError } from '../../errors.js';
import { formatDidYouMean } from '../../metadata/did-you-mean.js';
import { toPathSegment } from '../../metadata/naming.js';
import { GROUPS_KEYS, PAGINATION_KEYS, SECURITY_KEYS } from './build-operations.js';

/** A resource given to the plugin: a `defineResource` object or an `@ApiResource` class. */
export type ResourceInput = ResourceDeclaration | (abstract new (...args: never[]) => unknown);

/** Paths the framework serves itself. */
const RESERVED_PATHS = ['contexts', 'docs', 'errors', 'validation_errors', 'graphql'];

const RESOURCE_KEYS = [
  'name',
  'plural',
  'table',
  'description',
  'fields',
  'operations',
  'provider',
  'processor',
  'hooks',
  'filters',
  'order',
  'constraints',
  'collectionFilter',
  'requireIfMatch',
  'types',
  'softDelete',
  'id',
  'mercure',
  'cacheHeaders',
  ...PAGINATION_KEYS,
  ...GROUPS_KEYS,
  ...SECURITY_KEYS,
];

export function collectDeclarations(inputs: readonly ResourceInput[]): ResourceDeclaration[] {
  const declarations = inputs.map((input, index) => {
    if (typeof input === 'function') {
      const declaration = readDeclaration(input);
      if (!declaration) {
        throw new DeclarationError(
          `Class "${input.name}" (resource #${index + 1}) is not decorated with @ApiResource.`,
        );
      }
      return declaration;
    }
    if (input === null || typeof input !== 'object' || typeof (input as ResourceDeclaration).name !== 'string') {
      throw new DeclarationError(
        `Resource #${index + 1} is neither an @ApiResource class nor a declaration with a "name".`,
      );
    }
    return input;
  });

  const byName = new Map<string, ResourceDeclaration>();
  const byPath = new Map<string, string>();
  for (const declaration of declarations) {
    const { name } = declaration;
    if (!/^[A-Z][A-Za-z0-9]*$/.test(name)) {
      throw new DeclarationError(
        `Resource "${name}": the short name must be PascalCase letters and digits (e.g. "BookReview").`,
      );
    }
    for (const key of Object.keys(declaration)) {
      if (!RESOURCE_KEYS.includes(key)) {
        throw new DeclarationError(
          `Resource "${name}": unknown option "${key}".${formatDidYouMean(key, RESOURCE_KEYS)}`,
        );
      }
    }
    if (byName.has(name)) throw new DeclarationError(`Resource "${name}" is declared twice (duplicate short name).`);
    byName.set(name, declaration);
    if (typeof declaration.fields !== 'object' || declaration.fields === null || Array.isArray(declaration.fields)) {
      throw new DeclarationError(`Resource "${name}": "fields" must be an object of field declarations.`);
    }
    const plural = declaration.plural ?? toPathSegment(name);
    if (!/^[a-z0-9][a-z0-9_-]*$/.test(plural)) {
      throw new DeclarationError(
        `Resource "${name}": plural "${plural}" must be lower-case letters, digits, "_" or "-".`,
      );
    }
    if (RESERVED_PATHS.includes(plural))
      throw new DeclarationError(
        `Resource "${name}": path "/${plural}" is reserved by the framework; choose another "plural".`,
      );
    const clash = byPath.get(plural);
    if (clash)
      throw new DeclarationError(`Resource "${name}": path "/${plural}" is already used by resource "${clash}".`);
    byPath.set(plural, name);
  }
  return declarations;
}
