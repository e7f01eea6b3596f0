/**
 * Input and output shapes (DTOs) that operations name: checked and built once each, into metadata of the same form as
 * a resource's (fields with types, groups and constraints), so that deserialization, validation, normalization and
 * every document treat them with the code they use for resources. A shape has no table, operation or IRI of its own.
 */
import { readShapeDeclaration } from '../../declare/decorators.js';
import type { ShapeDeclaration, ShapeInput } from '../../declare/types.js';
import { DeclarationError } from '../../errors.js';
import { formatDidYouMean } from '../../metadata/did-you-mean.js';
import { RESERVED_CONTEXT_NAMES } from '../../metadata/reserved-names.js';
import type { ResourceMetadata } from '../../metadata/types.js';
import { buildFields } from './build-fields.js';
import { INTEGER_IDENTIFIER } from '../../metadata/identifier.js';

export interface ShapeBuilder {
  /** The metadata of a shape (built on first use); `where` names the operation for messages. */
  shapeOf(input: ShapeInput, where: string): ResourceMetadata;
  /** Every shape built, in the order first named. */
  all(): ResourceMetadata[];
}

const SHAPE_KEYS = ['name', 'description', 'fields', 'constraints'];

export function createShapeBuilder(resourceNames: ReadonlySet<string>): ShapeBuilder {
  const built = new Map<ShapeDeclaration, ResourceMetadata>();
  const byName = new Map<string, ShapeDeclaration>();

  function declarationFrom(input: ShapeInput, where: string): ShapeDeclaration {
    if (typeof input === 'function') {
      const declaration = readShapeDeclaration(input);
      if (!declaration) throw new DeclarationError(`${where}: class "${input.name}" is not decorated with @ApiShape.`);
      return declaration;
    }
    if (input === null || typeof input !== 'object' || typeof (input as ShapeDeclaration).name !== 'string') {
      throw new DeclarationError(`${where}: a shape is a defineShape({ name, fields }) object or an @ApiShape class.`);
    }
    return input;
  }

  function build(declaration: ShapeDeclaration): ResourceMetadata {
    const { name } = declaration;
    const where = `Shape "${name}"`;
    if (!/^[A-Z][A-Za-z0-9]*$/.test(name))
      throw new DeclarationError(
        `${where}: the short name must be PascalCase letters and digits (e.g. "AuthorStats").`,
      );
    if (RESERVED_CONTEXT_NAMES.includes(name))
      throw new DeclarationError(
        `${where}: "${name}" is the name of a document the framework serves itself; give the shape another name.`,
      );
    if (resourceNames.has(name))
      throw new DeclarationError(`${where}: a resource has this name already; give the shape another one.`);
    for (const key of Object.keys(declaration)) {
      if (!SHAPE_KEYS.includes(key))
        throw new DeclarationError(`${where}: unknown option "${key}".${formatDidYouMean(key, SHAPE_KEYS)}`);
    }
    if (typeof declaration.fields !== 'object' || declaration.fields === null || Array.isArray(declaration.fields)) {
      throw new DeclarationError(`${where}: "fields" must be an object of field declarations.`);
    }
    for (const [field, options] of Object.entries(declaration.fields)) {
      if (options !== null && typeof options === 'object' && ('toOne' in options || 'toMany' in options)) {
        throw new DeclarationError(`${where}, field "${field}": a shape holds scalar fields only (give it a "type").`);
      }
    }
    for (const [field, options] of Object.entries(declaration.fields)) {
      if (options.timestamp !== undefined)
        throw new DeclarationError(
          `${where}, field "${field}": a shape is never stored, so nothing stamps it; a timestamp belongs on a resource.`,
        );
      if ((options.constraints ?? []).some((constraint) => constraint?.kind === 'Unique')) {
        throw new DeclarationError(
          `${where}, field "${field}": Unique compares with stored items, and a shape is never stored; check it in the operation's processor.`,
        );
      }
    }
    // A shape's fields are never stored: no column.
    const fields = buildFields({ name, fields: declaration.fields }, new Set()).map((field) =>
      field.kind === 'scalar' ? { ...field, column: '' } : field,
    );
    return {
      name,
      shape: true,
      stored: false,
      description: declaration.description,
      plural: '',
      collectionPath: '',
      table: '',
      identifier: INTEGER_IDENTIFIER,
      fields,
      fieldsByName: new Map(fields.map((field) => [field.name, field])),
      operations: [],
      filters: [],
      collectionFilter: undefined,
      requireIfMatch: false,
      types: [declaration.name],
      softDelete: null,
      mercure: null,
      constraints: [...(declaration.constraints ?? [])],
      defaultOrder: [],
      provider: undefined,
      processor: undefined,
    };
  }

  return {
    shapeOf(input, where) {
      const declaration = declarationFrom(input, where);
      let shape = built.get(declaration);
      if (shape) return shape;
      const other = byName.get(declaration.name);
      if (other)
        throw new DeclarationError(
          `${where}: another shape is named "${declaration.name}" already; shape names are unique.`,
        );
      shape = build(declaration);
      built.set(declaration, shape);
      byName.set(declaration.name, declaration);
      return shape;
    },
    all: () => [...built.values()],
  };
}
