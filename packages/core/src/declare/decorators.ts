/**
 * The decorator form of a declaration (TC39 standard decorators, TypeScript 5 without `experimentalDecorators`).
 * `@ApiProperty` records each field's declaration in the class's decorator metadata; `@ApiResource` then assembles a
 * `ResourceDeclaration` identical to what `defineResource` takes, and attaches it to the class.
 */
import type {
  ApiResourceOptions,
  BuiltinFilterDeclaration,
  DateNullMode,
  FieldDeclaration,
  FilterDeclaration,
  OrderPropertyOptions,
  ResourceDeclaration,
  SearchStrategy,
  ShapeDeclaration,
} from './types.js';
import { DeclarationError } from '../errors.js';
import type { Constraint } from '../metadata/constraints.js';

// Node 20 has no Symbol.metadata yet; without it decorators get no `context.metadata`. esbuild falls back to the same
// registered symbol, so classes compiled by tsc and by esbuild (vitest) share it.
(Symbol as { metadata?: symbol }).metadata ??= Symbol.for('Symbol.metadata');

const FIELDS = Symbol('resource-api.fields');
const CLASS_FILTERS = Symbol('resource-api.class-filters');
const FIELD_FILTERS = Symbol('resource-api.field-filters');
const CLASS_CONSTRAINTS = Symbol('resource-api.class-constraints');
const FIELD_CONSTRAINTS = Symbol('resource-api.field-constraints');
const resources = new WeakMap<
  object,
  { options: ApiResourceOptions; name: string; bag: Record<symbol, unknown> | undefined }
>();
const declarations = new WeakMap<object, ResourceDeclaration>();
const shapes = new WeakMap<
  object,
  { options: ApiShapeOptions; name: string; bag: Record<symbol, unknown> | undefined }
>();
const shapeDeclarations = new WeakMap<object, ShapeDeclaration>();

/** Own list of the decorator metadata under `key`, created on first use. */
function ownList<T>(bag: Record<symbol, unknown>, key: symbol): T[] {
  if (!Object.hasOwn(bag, key)) bag[key] = [...((bag[key] as T[] | undefined) ?? [])];
  return bag[key] as T[];
}

type AnyClass = abstract new (...args: never[]) => unknown;

/**
 * Declares a field of a decorated resource class; takes the same options as a field of `defineResource`.
 *
 * @example
 * \@ApiProperty({ type: 'string', description: 'The title' }) title!: string;
 */
export function ApiProperty(field: FieldDeclaration) {
  return (_value: undefined, context: ClassFieldDecoratorContext): void => {
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
  return <C extends AnyClass>(target: C, context: ClassDecoratorContext<C>): void => {
    // Assembled on first use, once every decorator of the class (an @ApiFilter above this one too) has run.
    resources.set(target, {
      options,
      name: options.name ?? String(context.name),
      bag: context.metadata as Record<symbol, unknown> | undefined,
    });
  };
}

/** Options of `@ApiShape`: a shape's declaration minus its fields (the name defaults to the class name). */
export type ApiShapeOptions = Partial<Omit<ShapeDeclaration, 'fields'>>;

/**
 * Makes a class an input or output shape (a DTO) for custom operations: its `@ApiProperty` fields (scalars) and
 * `@Assert` constraints, as `defineShape` takes them.
 *
 * @example
 * \@ApiShape()
 * class AuthorStats {
 *   \@ApiProperty({ type: 'integer' }) bookCount!: number;
 * }
 */
export function ApiShape(options: ApiShapeOptions = {}) {
  return <C extends AnyClass>(target: C, context: ClassDecoratorContext<C>): void => {
    shapes.set(target, {
      options,
      name: options.name ?? String(context.name),
      bag: context.metadata as Record<symbol, unknown> | undefined,
    });
  };
}

/** The declaration of a class decorated with `@ApiShape`, or undefined. */
export function readShapeDeclaration(target: unknown): ShapeDeclaration | undefined {
  if (typeof target !== 'function') return undefined;
  const cached = shapeDeclarations.get(target);
  if (cached) return cached;
  const found = shapes.get(target);
  if (!found) return undefined;
  const fields = fieldsWithConstraints(found.bag, `Shape "${found.name}"`);
  const declaration: ShapeDeclaration = {
    ...found.options,
    name: found.name,
    fields: fields as ShapeDeclaration['fields'],
  };
  const classConstraints = (found.bag?.[CLASS_CONSTRAINTS] as Constraint[] | undefined) ?? [];
  if (classConstraints.length > 0)
    declaration.constraints = [...(found.options.constraints ?? []), ...classConstraints];
  shapeDeclarations.set(target, declaration);
  return declaration;
}

/** The `@ApiProperty` fields of a decorated class, with their `@Assert` constraints added. */
function fieldsWithConstraints(
  bag: Record<symbol, unknown> | undefined,
  where: string,
): Record<string, FieldDeclaration> {
  const fields = { ...(bag?.[FIELDS] as Record<string, FieldDeclaration> | undefined) };
  const asserted = (bag?.[FIELD_CONSTRAINTS] as Record<string, Constraint[]> | undefined) ?? {};
  for (const [name, constraints] of Object.entries(asserted)) {
    const field = fields[name];
    if (!field) throw new DeclarationError(`${where}, field "${name}": @Assert needs @ApiProperty on the same field.`);
    fields[name] = { ...field, constraints: [...(field.constraints ?? []), ...constraints] };
  }
  return fields;
}

/** Field-level filter options: the filter type and what the class-level form would give per property. */
export type FieldFilterOptions =
  | { type: 'search'; strategy?: SearchStrategy; substringIndex?: boolean }
  | { type: 'range' | 'boolean' | 'numeric' | 'exists' }
  | { type: 'date'; nulls?: DateNullMode }
  | ({ type: 'order' } & OrderPropertyOptions);

/**
 * Declares a filter. On the class it takes what `filters: [...]` takes (a built-in declaration or a custom `Filter`);
 * on a field, the filter type and its per-property options.
 *
 * @example
 * \@ApiFilter({ type: 'order', properties: ['title', 'id'] })
 * \@ApiResource()
 * class Book {
 *   \@ApiFilter({ type: 'search', strategy: 'ipartial' })
 *   \@ApiProperty({ type: 'string' }) title!: string;
 * }
 */
export function ApiFilter(filter: FilterDeclaration | FieldFilterOptions) {
  return (_value: unknown, context: ClassDecoratorContext | ClassFieldDecoratorContext): void => {
    const bag = context.metadata as Record<symbol, unknown>;
    if (context.kind === 'class') {
      // Class decorators apply bottom-up: unshift keeps the source order.
      ownList<FilterDeclaration>(bag, CLASS_FILTERS).unshift(filter as FilterDeclaration);
      return;
    }
    if (context.kind !== 'field') throw new TypeError(`@ApiFilter goes on a resource class or on one of its fields.`);
    ownList<BuiltinFilterDeclaration>(bag, FIELD_FILTERS).push(
      toPropertyFilter(String(context.name), filter as FieldFilterOptions),
    );
  };
}

function toPropertyFilter(field: string, options: FieldFilterOptions): BuiltinFilterDeclaration {
  switch (options.type) {
    case 'search':
      return {
        type: 'search',
        properties: { [field]: options.strategy ?? 'exact' },
        ...(options.substringIndex ? { substringIndex: true } : {}),
      };
    case 'date':
      return { type: 'date', properties: { [field]: options.nulls ?? 'exclude_null' } };
    case 'order': {
      const { type: _type, ...rest } = options;
      return { type: 'order', properties: { [field]: rest } };
    }
    default:
      return { type: options.type, properties: [field] } as BuiltinFilterDeclaration;
  }
}

/**
 * Adds constraints: on a field, to its value (`@Assert(NotBlank(), Length({ min: 3 }))`); on the class, to the whole
 * item (`@Assert(Unique({ fields: ['isbn', 'edition'] }))`). The same constraints as `constraints: [...]` in a plain
 * declaration.
 */
export function Assert(...constraints: Constraint[]) {
  return (_value: unknown, context: ClassDecoratorContext | ClassFieldDecoratorContext): void => {
    const bag = context.metadata as Record<symbol, unknown>;
    if (context.kind === 'class') {
      ownList<Constraint>(bag, CLASS_CONSTRAINTS).unshift(...constraints);
      return;
    }
    if (context.kind !== 'field') throw new TypeError('@Assert goes on a resource class or on one of its fields.');
    if (!Object.hasOwn(bag, FIELD_CONSTRAINTS))
      bag[FIELD_CONSTRAINTS] = { ...(bag[FIELD_CONSTRAINTS] as object | undefined) };
    const byField = bag[FIELD_CONSTRAINTS] as Record<string, Constraint[]>;
    // Field decorators apply bottom-up: unshift keeps the source order.
    byField[String(context.name)] = [...constraints, ...(byField[String(context.name)] ?? [])];
  };
}

/** The declaration of a class decorated with `@ApiResource`, or undefined. */
export function readDeclaration(target: unknown): ResourceDeclaration | undefined {
  if (typeof target !== 'function') return undefined;
  const cached = declarations.get(target);
  if (cached) return cached;
  const found = resources.get(target);
  if (!found) return undefined;
  const { options, name, bag } = found;
  const fields = fieldsWithConstraints(bag, `Resource "${found.name}"`);
  const decorated = [
    ...((bag?.[CLASS_FILTERS] as FilterDeclaration[] | undefined) ?? []),
    ...((bag?.[FIELD_FILTERS] as FilterDeclaration[] | undefined) ?? []),
  ];
  const declaration: ResourceDeclaration = { ...options, name, fields };
  if (decorated.length > 0) declaration.filters = [...(options.filters ?? []), ...decorated];
  const classConstraints = (bag?.[CLASS_CONSTRAINTS] as Constraint[] | undefined) ?? [];
  if (classConstraints.length > 0) declaration.constraints = [...(options.constraints ?? []), ...classConstraints];
  declarations.set(target, declaration);
  return declaration;
}
