/**
 * JSON Schema of a request body per resource × write mode × write groups: the fields a client may write, with
 * their types. ajv compiles each once (at start-up for fixed groups); the same schemas feed OpenAPI and GraphQL inputs.
 */
import type {
  FieldMetadata,
  MetadataRegistry,
  ResourceMetadata,
  ScalarFieldMetadata,
  ToManyFieldMetadata,
  ToOneFieldMetadata,
} from '../metadata/types.js';
import { isInGroups } from '../metadata/groups.js';

export type JsonSchema = Record<string, unknown>;

/**
 * How a body is applied: a new item (POST, nested create), a full replacement (PUT), a merge patch (PATCH, nested
 * update).
 */
export type WriteMode = 'create' | 'replace' | 'update';

/** The write mode of each operation that reads a body: POST creates, PUT replaces, PATCH updates. */
export const WRITE_MODES = { post: 'create', put: 'replace', patch: 'update' } as const satisfies Record<
  string,
  WriteMode
>;

/** Write groups in force, or null when none are declared (every writable field is accepted). */
export type WriteGroups = ReadonlySet<string> | null;

const INT32 = { minimum: -2_147_483_648, maximum: 2_147_483_647 };

/** The fields a client may write: writable ones in the write groups; immutable ones on create only. */
export function listWritableFields(resource: ResourceMetadata, mode: WriteMode, groups: WriteGroups): FieldMetadata[] {
  return resource.fields.filter((f) => f.writable && isInGroups(f, groups) && (mode === 'create' || !f.immutable));
}

/**
 * Whether a relation accepts nested objects: forced by `writableLink`, else when it cascades creation (to-one) or the
 * write groups reach a field of the target (API Platform's writableLink rule).
 */
export function acceptsNested(
  field: ToOneFieldMetadata | ToManyFieldMetadata,
  groups: WriteGroups,
  registry: MetadataRegistry,
): boolean {
  if (field.kind === 'toMany') return false;
  if (field.writableLink !== undefined) return field.writableLink;
  if (field.cascadePersist) return true;
  if (groups === null) return false;
  return registry.resource(field.target).fields.some((f) => f.groups.some((g) => groups.has(g)));
}

function scalarSchema(field: ScalarFieldMetadata): JsonSchema {
  switch (field.type) {
    case 'integer':
      return { type: 'integer', ...INT32 };
    case 'float':
      return { type: 'number' };
    case 'boolean':
      return { type: 'boolean' };
    case 'datetime':
      return { type: 'string', format: 'date-time' };
    case 'date':
      return { type: 'string', format: 'date' };
    case 'json':
      return {};
    case 'string[]':
      return { type: 'array', items: { type: 'string' } };
    case 'password':
      return { type: 'string', writeOnly: true };
    case 'file':
      // A part of a `multipart/form-data` body (OpenAPI's way to say so); never a JSON value.
      return { type: 'string', format: 'binary' };
    default:
      return { type: 'string' };
  }
}

/** The schema of one field's value as a client writes it. */
export function buildFieldInputSchema(field: FieldMetadata, nested = false): JsonSchema {
  const iri = { type: 'string', format: 'iri-reference' };
  const schema: JsonSchema =
    field.kind === 'scalar'
      ? scalarSchema(field)
      : field.kind === 'toOne'
        ? nested
          ? { anyOf: [iri, { type: 'object' }] }
          : { ...iri }
        : { type: 'array', items: iri };
  if (field.description) schema.description = field.description;
  if (field.nullable) {
    if (typeof schema.type === 'string') schema.type = [schema.type, 'null'];
    else if (Array.isArray(schema.anyOf)) schema.anyOf = [...schema.anyOf, { type: 'null' }];
  }
  return schema;
}

export function buildInputSchema(
  resource: ResourceMetadata,
  mode: WriteMode,
  groups: WriteGroups,
  registry: MetadataRegistry,
): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  for (const field of listWritableFields(resource, mode, groups)) {
    properties[field.name] = buildFieldInputSchema(
      field,
      field.kind !== 'scalar' && acceptsNested(field, groups, registry),
    );
  }
  // Unknown keys are ignored (API Platform's default), not rejected.
  return { type: 'object', properties, additionalProperties: true };
}
