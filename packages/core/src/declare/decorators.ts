/**
 * The decorator form of a declaration (TC39 standard decorators, TypeScript 5 without `experimentalDecorators`).
 * `@ApiProperty` records each field's declaration in the class's decorator metadata; `@ApiResource` then assembles a
 * `ResourceDeclaration` identical to what `defineResource` takes, and attaches it to the class.
 */
import type { ApiResourceOptions, FieldDeclaration, ResourceDeclaration } from './types.js';

// Node 20 has no Symbol.metadata yet; without it decorators get no `context.metadata`. esbuild falls back to the same
// registered symbol, so classes compiled by tsc and by esbuild (vitest) share it.
(Symbol as { metadata?: symbol }).metadata ??= Symbol.for('Symbol.metadata');

const FIELDS = Symbol('resource-api.fields');
const declarations = new WeakMap<object, ResourceDeclaration>();

type AnyClass = abstract new (...args: never[]) => unknown;

/**
 * Declares a field of a decorated resource class; takes the same options as a field of `defineResource`.
 *
 * @example
 * \@ApiProperty({ type: 'string', description: 'The title' }) title!: string;
 */
export function ApiProperty(field: FieldDeclaration) {
  return function (_value: undefined, context: ClassFieldDecoratorContext): void {
    if (context.kind !== 'field' || context.static || context.private) {
      throw new TypeError(`@ApiProperty goes on a public instance field, not on "${String(context.name)}".`);
    }
    const bag = context.metadata as Record<symbol, unknown>;
    if (!Object.hasOwn(bag, FIELDS)) {
      // Inherit the fields of a decorated parent class, in their order, before the subclass's own.
      const inherited = bag[FIELDS] as Record<string, FieldDeclaration> | undefined;
      bag[FIELDS] = { ...inherited };
    }
    (bag[FIELDS] as Record<string, FieldDeclaration>)[String(context.name)] = field;
  };
}

/**
 * Makes a class a resource. The short name defaults to the class name.
 *
 * @example
 * \@ApiResource({ operations: ['get', 'getCollection'] })
 * class Book {
 *   \@ApiProperty({ type: 'string' }) title!: string;
 * }
 */
export function ApiResource(options: ApiResourceOptions = {}) {
  return function <C extends AnyClass>(target: C, context: ClassDecoratorContext<C>): void {
    const bag = context.metadata as Record<symbol, unknown> | undefined;
    const fields = { ...(bag?.[FIELDS] as Record<string, FieldDeclaration> | undefined) };
    const declaration: ResourceDeclaration = { ...options, name: options.name ?? String(context.name), fields };
    declarations.set(target, declaration);
  };
}

/** The declaration of a class decorated with `@ApiResource`, or undefined. */
export function declarationOf(target: unknown): ResourceDeclaration | undefined {
  return typeof target === 'function' ? declarations.get(target) : undefined;
}
