/**
 * JSON Schema of a request body per resource × operation: the fields the operation accepts, with their types.
 * Compiled once by ajv at start-up; the same schemas will feed OpenAPI and GraphQL inputs.
 */
import type { FieldMetadata, OperationMetadata, ResourceMetadata, ScalarFieldMetadata } from '../metadata/types.js';

export type JsonSchema = Record<string, unknown>;

const INT32 = { minimum: -2_147_483_648, maximum: 2_147_483_647 };

/** The fields a client may write in this operation: writable ones, and immutable ones on create only. */
export function writableFields(resource: ResourceMetadata, operation: OperationMetadata): FieldMetadata[] {
  return resource.fields.filter((f) => f.writable && (operation.kind === 'post' || !f.immutable));
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
    default:
      return { type: 'string' };
  }
}

/** The schema of one field's value as a client writes it. */
export function fieldInputSchema(field: FieldMetadata): JsonSchema {
  const schema: JsonSchema =
    field.kind === 'scalar' ? scalarSchema(field) : field.kind === 'toOne' ? { type: 'string', format: 'iri-reference' }
      : { type: 'array', items: { type: 'string', format: 'iri-reference' } };
  if (field.description) schema.description = field.description;
  if (field.nullable && typeof schema.type === 'string') schema.type = [schema.type, 'null'];
  return schema;
}

export function buildInputSchema(resource: ResourceMetadata, operation: OperationMetadata): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  for (const field of writableFields(resource, operation)) properties[field.name] = fieldInputSchema(field);
  // Unknown keys are ignored (API Platform's default), not rejected.
  return { type: 'object', properties, additionalProperties: true };
}
