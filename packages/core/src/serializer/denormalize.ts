/**
 * Denormalization: a request body → the new state of the item, for POST (from defaults), PUT (a full replacement of
 * the writable fields; write-only secrets and immutable fields keep their values) and PATCH (a JSON merge patch).
 * Keys the operation may not write are ignored silently, as API Platform does. Wrong types and unusable IRIs become
 * violations naming the property; the validate stage reports them with its own, all at once.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { ApiError } from '../errors.js';
import type { FieldMetadata, MetadataRegistry, OperationMetadata, ResourceMetadata, ScalarFieldMetadata } from '../metadata/types.js';
import { buildInputSchema, writableFields } from '../schema/input-schema.js';
import type { Entity } from '../state/contracts.js';
import { type ConstraintViolation, VIOLATION_CODES, violation } from '../validation/violation.js';
import { today } from './datetime.js';
import { parseIri } from './iri.js';
import { applyMergePatch } from './merge-patch.js';
import { findNul } from './nul-character.js';

// ajv-formats is CommonJS; its default export arrives wrapped under ESM.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv) => Ajv;

export interface DenormalizeInput {
  readonly resource: ResourceMetadata;
  readonly operation: OperationMetadata;
  readonly body: unknown;
  /** The item read (PUT, PATCH), or null (POST). */
  readonly previous: Entity | null;
}

export interface DenormalizeResult {
  readonly data: Entity;
  readonly violations: ConstraintViolation[];
}

export type ExistingIds = (resource: ResourceMetadata, ids: readonly number[]) => Promise<Set<number>>;

export interface Denormalizer {
  denormalize(input: DenormalizeInput): Promise<DenormalizeResult>;
}

const TYPE_NAMES: Record<string, string> = {
  string: 'string', text: 'string', password: 'string', datetime: 'string', date: 'string',
  integer: 'integer', float: 'number', boolean: 'boolean', 'string[]': 'array',
};

function typeViolation(field: FieldMetadata, error: ErrorObject, path: string): ConstraintViolation {
  if (error.keyword === 'format' && field.kind === 'scalar' && (field.type === 'datetime' || field.type === 'date')) {
    return field.type === 'date'
      ? violation(path, 'This value is not a valid date.', VIOLATION_CODES.date)
      : violation(path, 'This value is not a valid datetime.', VIOLATION_CODES.dateTime);
  }
  if (error.keyword === 'minimum' || error.keyword === 'maximum') {
    return violation(path, 'This value should be between -2147483648 and 2147483647.', VIOLATION_CODES.range);
  }
  if (field.kind !== 'scalar') {
    const what = field.kind === 'toOne' ? 'an IRI string' : 'an array of IRI strings';
    return violation(path, `This value should be ${what} of "${field.target}" items.`, VIOLATION_CODES.type);
  }
  const expected = path.includes('[') ? 'string' : TYPE_NAMES[field.type] ?? 'string';
  return violation(path, `This value should be of type ${expected}.`, VIOLATION_CODES.type);
}

/** `/roles/1` → `roles[1]`. */
const toPropertyPath = (instancePath: string): string =>
  instancePath
    .slice(1)
    .split('/')
    .map((segment, index) => (index === 0 ? segment : /^\d+$/.test(segment) ? `[${segment}]` : `.${segment}`))
    .join('');

function resolveDefault(field: ScalarFieldMetadata): unknown {
  if (field.default === 'now') return field.type === 'date' ? today() : new Date();
  if (field.default === undefined) return null;
  if (field.type === 'datetime' && typeof field.default === 'string') return new Date(field.default);
  return structuredClone(field.default);
}

const initialValue = (field: FieldMetadata): unknown => (field.kind === 'scalar' ? resolveDefault(field) : null);

export function createDenormalizer(registry: MetadataRegistry, existingIds: ExistingIds): Denormalizer {
  const ajv = new Ajv({ allErrors: true, strict: true, strictNumbers: true, coerceTypes: false });
  addFormats(ajv);
  ajv.addFormat('iri-reference', true);

  const validators = new Map<OperationMetadata, { validate: ValidateFunction; fields: readonly FieldMetadata[] }>();
  for (const resource of registry.resources) {
    for (const operation of resource.operations) {
      if (!operation.stages.deserialize) continue;
      validators.set(operation, { validate: ajv.compile(buildInputSchema(resource, operation)), fields: writableFields(resource, operation) });
    }
  }

  /** IRIs → ids, with a violation for each IRI that is garbage, of another type, or of a missing item. */
  async function resolveRelations(input: Record<string, unknown>, fields: readonly FieldMetadata[], violations: ConstraintViolation[]) {
    const wanted = new Map<ResourceMetadata, { path: string; iri: string; id: number; field: string }[]>();
    const bad = new Set<string>();
    for (const field of fields) {
      if (field.kind !== 'toOne' || input[field.name] === undefined || input[field.name] === null) continue;
      const iri = input[field.name] as string;
      const target = registry.resource(field.target);
      const parsed = parseIri(iri, registry);
      if (!parsed) {
        violations.push(violation(field.name, `Invalid IRI "${iri}".`, VIOLATION_CODES.invalidRelation));
        bad.add(field.name);
      } else if (parsed.resource !== target) {
        violations.push(violation(field.name, `IRI "${iri}" is not an item of type "${target.name}".`, VIOLATION_CODES.invalidRelation));
        bad.add(field.name);
      } else {
        const list = wanted.get(target) ?? [];
        list.push({ path: field.name, iri, id: parsed.id, field: field.name });
        wanted.set(target, list);
        input[field.name] = parsed.id;
      }
    }
    for (const [target, refs] of wanted) {
      const found = await existingIds(target, refs.map((r) => r.id));
      for (const ref of refs) {
        if (found.has(ref.id)) continue;
        violations.push(violation(ref.path, `Item not found for "${ref.iri}".`, VIOLATION_CODES.invalidRelation));
        bad.add(ref.field);
      }
    }
    for (const name of bad) delete input[name];
  }

  return {
    async denormalize({ resource, operation, body, previous }) {
      if (body === undefined) throw new ApiError('EMPTY_BODY', 'The request body is empty; send a JSON object.');
      if (body === null || typeof body !== 'object' || Array.isArray(body)) {
        throw new ApiError('BODY_NOT_OBJECT', 'The request body must be a JSON object.');
      }
      if (operation.kind === 'post' && '@id' in body) throw new ApiError('UPDATE_NOT_ALLOWED', 'Update is not allowed for this operation.');
      const nul = findNul(body);
      if (nul !== undefined) {
        throw new ApiError('VALIDATION_FAILED', `${nul}: This value must not contain the NUL character.`, {
          violations: [violation(nul, 'This value must not contain the NUL character.', VIOLATION_CODES.nul)],
        });
      }

      const { validate, fields } = validators.get(operation)!;
      const source = body as Record<string, unknown>;
      const input: Record<string, unknown> = {};
      for (const field of fields) if (Object.hasOwn(source, field.name)) input[field.name] = source[field.name];

      const violations: ConstraintViolation[] = [];
      if (!validate(input)) {
        const reported = new Set<string>();
        for (const error of validate.errors ?? []) {
          const path = toPropertyPath(error.instancePath);
          const name = path.split(/[.[]/)[0]!;
          const field = fields.find((f) => f.name === name);
          if (!field || reported.has(name)) continue;
          reported.add(name);
          violations.push(
            input[name] === null
              ? violation(name, 'This value should not be null.', VIOLATION_CODES.notNull)
              : typeViolation(field, error, path),
          );
          delete input[name];
        }
      }
      await resolveRelations(input, fields, violations);

      for (const field of fields) {
        const value = input[field.name];
        if (field.kind === 'scalar' && field.type === 'datetime' && typeof value === 'string') input[field.name] = new Date(value);
      }

      const data: Entity = {};
      const stored = resource.fields.filter((f) => f.kind !== 'toMany');
      if (operation.kind === 'post') {
        for (const field of stored) data[field.name] = Object.hasOwn(input, field.name) ? input[field.name] : initialValue(field);
      } else if (operation.kind === 'put') {
        Object.assign(data, previous);
        for (const field of fields) {
          if (field.kind === 'toMany') continue;
          if (Object.hasOwn(input, field.name)) data[field.name] = input[field.name];
          // A write-only secret left out keeps its value; anything else goes back to its default.
          else if (!(field.kind === 'scalar' && field.type === 'password')) data[field.name] = initialValue(field);
        }
      } else {
        Object.assign(data, previous);
        for (const [name, value] of Object.entries(input)) {
          const field = fields.find((f) => f.name === name)!;
          data[name] = field.kind === 'scalar' && field.type === 'json' ? applyMergePatch(previous?.[name], value) : value;
        }
      }
      return { data, violations };
    },
  };
}
