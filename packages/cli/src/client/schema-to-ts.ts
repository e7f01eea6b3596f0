/**
 * JSON Schema → TypeScript type expressions, for the vocabulary the API's OpenAPI component schemas use: `$ref`,
 * `const`, `enum`, `anyOf` / `oneOf` / `allOf`, `type` (one or a list), `items`, `properties` with `required`. A schema
 * without a type (a `json` field) is any JSON value. Descriptions and formats become doc comments on properties.
 */
import { docComment, literal, propertyKey } from './naming.js';

export type JsonSchema = Readonly<Record<string, unknown>>;

export interface TypeContext {
  /** The TypeScript name of a component schema, from its `$ref`. */
  ref(component: string): string;
  /**
   * A type decided by the caller for one property of an object (a nested write of a relation), or undefined to
   * convert the property's schema as it is.
   */
  property?(name: string, schema: JsonSchema): string | undefined;
}

const REF_PREFIX = '#/components/schemas/';

/** The component a `$ref` names, or undefined for a schema that is no reference. */
export function refName(schema: unknown): string | undefined {
  const ref = (schema as { $ref?: unknown } | undefined)?.$ref;
  return typeof ref === 'string' && ref.startsWith(REF_PREFIX) ? ref.slice(REF_PREFIX.length) : undefined;
}

/** `T[]` for a simple `T`, `Array<…>` when brackets would bind wrongly. */
export const arrayOf = (item: string): string => (/^[A-Za-z0-9_$.']+$/.test(item) ? `${item}[]` : `Array<${item}>`);

const union = (types: readonly string[]): string => [...new Set(types)].join(' | ');

const literalOf = (value: unknown): string => (typeof value === 'string' ? literal(value) : JSON.stringify(value));

/** The doc comment of a property: its description, with its format (`date-time`) when it has one. */
function propertyDoc(schema: JsonSchema): string | undefined {
  const description = typeof schema.description === 'string' ? schema.description : undefined;
  const format = typeof schema.format === 'string' && schema.format !== 'iri-reference' ? schema.format : undefined;
  if (format === undefined) return description;
  return description ? `${description} (${format})` : `A ${format} string.`;
}

/** An object type: one property per line, `?` on those not required. */
export function objectType(
  schema: JsonSchema,
  context: TypeContext,
  indent: string,
  required: readonly string[] = (schema.required as string[] | undefined) ?? [],
): string {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const inner = `${indent}  `;
  const lines = Object.entries(properties).map(([name, property]) => {
    const type = context.property?.(name, property) ?? toTs(property, context, inner);
    return `${docComment(propertyDoc(property), inner)}${inner}${propertyKey(name)}${required.includes(name) ? '' : '?'}: ${type};\n`;
  });
  return lines.length === 0 ? 'Record<string, never>' : `{\n${lines.join('')}${indent}}`;
}

/** The type of a value matching `schema`; `indent` is that of the line the type starts on. */
export function toTs(schema: JsonSchema, context: TypeContext, indent = ''): string {
  const ref = refName(schema);
  if (ref !== undefined) return context.ref(ref);
  if ('const' in schema) return literalOf(schema.const);
  if (Array.isArray(schema.enum)) return union(schema.enum.map(literalOf));
  const alternatives = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (alternatives) return union(alternatives.map((s) => toTs(s, { ref: context.ref }, indent)));
  if (Array.isArray(schema.allOf))
    return (schema.allOf as JsonSchema[]).map((s) => toTs(s, { ref: context.ref }, indent)).join(' & ');
  const { type } = schema;
  if (Array.isArray(type)) return union(type.map((t) => toTs({ ...schema, type: t }, context, indent)));
  switch (type) {
    case 'string':
      return 'string';
    case 'integer':
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'array':
      return arrayOf(schema.items ? toTs(schema.items as JsonSchema, { ref: context.ref }, indent) : 'JsonValue');
    case 'object':
      return schema.properties ? objectType(schema, context, indent) : '{ [key: string]: unknown }';
    default:
      return 'JsonValue';
  }
}
