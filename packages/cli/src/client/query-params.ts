/**
 * The query parameters of a collection read (its filters and pagination, as the OpenAPI document lists them) as one
 * typed object: `title` and `title[]` become `title?: string | string[]`, `order[title]` and `price[gt]` become
 * `order?: { title?: 'asc' | 'desc' }` and `price?: { gt?: number }`. The client's runtime writes the object back in
 * the same syntax (`title[]=a&title[]=b`, `order[title]=desc`), so every name the API reads is reachable and no other.
 * A name of any other shape is kept as it is, as a quoted key.
 */
import { docComment, literal, propertyKey } from './naming.js';
import { arrayOf, type JsonSchema } from './schema-to-ts.js';

/** A query parameter of the OpenAPI document. */
export interface QueryParameter {
  readonly name: string;
  readonly required?: boolean;
  readonly description?: string;
  readonly schema: JsonSchema;
}

/** What one name (or one key under a name) takes: a single value, a list (`name[]`), keys (`name[key]`). */
interface Slot {
  single?: QueryParameter;
  list?: QueryParameter;
  keys?: Map<string, Slot>;
}

const SHAPE = /^([^[\]]+)(?:\[([^[\]]+)\])?(\[\])?$/;

/** The TypeScript type of one value of a parameter. */
function valueType(schema: JsonSchema): string {
  if (Array.isArray(schema.enum))
    return schema.enum.map((v) => (typeof v === 'string' ? literal(v) : JSON.stringify(v))).join(' | ');
  switch (schema.type) {
    case 'integer':
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    default:
      // Dates are sent as ISO 8601; a Date is written so by the runtime.
      return schema.format === 'date' || schema.format === 'date-time' ? 'string | Date' : 'string';
  }
}

function slotType(slot: Slot, indent: string): string {
  const types: string[] = [];
  if (slot.single) types.push(valueType(slot.single.schema));
  if (slot.list) types.push(arrayOf(`${valueType((slot.list.schema.items ?? slot.list.schema) as JsonSchema)}`));
  if (slot.keys) types.push(slotsType(slot.keys, indent));
  return types.join(' | ');
}

const isRequired = (slot: Slot): boolean =>
  slot.single?.required === true || slot.list?.required === true || [...(slot.keys?.values() ?? [])].some(isRequired);

/** The description of a slot: its single form's, else its list form's. */
const describe = (slot: Slot): string | undefined => slot.single?.description ?? slot.list?.description;

function slotsType(slots: ReadonlyMap<string, Slot>, indent: string): string {
  const inner = `${indent}  `;
  const lines = [...slots].map(
    ([name, slot]) =>
      `${docComment(describe(slot), inner)}${inner}${propertyKey(name)}${isRequired(slot) ? '' : '?'}: ${slotType(slot, inner)};\n`,
  );
  return `{\n${lines.join('')}${indent}}`;
}

/** Groups the flat parameter names into slots, in the order the document lists them. */
function toSlots(parameters: readonly QueryParameter[]): Map<string, Slot> {
  const slots = new Map<string, Slot>();
  const slotOf = (map: Map<string, Slot>, name: string): Slot => {
    let slot = map.get(name);
    if (!slot) map.set(name, (slot = {}));
    return slot;
  };
  for (const parameter of parameters) {
    const match = SHAPE.exec(parameter.name);
    if (!match) {
      slotOf(slots, parameter.name).single = parameter;
      continue;
    }
    const [, base, key, list] = match;
    let slot = slotOf(slots, base!);
    if (key !== undefined) slot = slotOf((slot.keys ??= new Map()), key);
    if (list) slot.list = parameter;
    else slot.single = parameter;
  }
  return slots;
}

/** The parameters as the body of an object type (`{ … }`), and whether any of them is required. */
export function paramsType(parameters: readonly QueryParameter[]): {
  readonly type: string;
  readonly required: boolean;
} {
  const slots = toSlots(parameters);
  return {
    type: slots.size === 0 ? 'Record<string, never>' : slotsType(slots, ''),
    required: [...slots.values()].some(isRequired),
  };
}
