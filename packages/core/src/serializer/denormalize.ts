/**
 * Denormalization: a request body → the new state of the item, for POST (from defaults), PUT (a full replacement of
 * the writable fields; write-only secrets and immutable fields keep their values) and PATCH (a JSON merge patch), by
 * the operation's write groups. Keys the operation may not write are ignored silently, as API Platform does.
 * Relations take IRIs; a cascading to-one also takes a nested object (created, or updated when it has an `@id`; in a
 * merge patch, one without `@id` is merged into the item the relation holds).
 * Wrong types and unusable IRIs become violations naming the property; the validate stage reports them with its own.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { ApiError, type ConstraintViolation } from '../errors.js';
import { ANONYMOUS, type Caller, grantsField } from '../security/access.js';
import {
  type Entity,
  type FieldMetadata,
  type MetadataRegistry,
  NestedWrite,
  type ResourceMetadata,
  type ToOneFieldMetadata,
} from '../metadata/types.js';
import { toFixedGroups } from '../metadata/groups.js';
import { resolveInitialValue } from '../schema/initial-values.js';
import {
  acceptsNested,
  buildInputSchema,
  type WriteGroups,
  type WriteMode,
  listWritableFields,
} from '../schema/input-schema.js';
import { VIOLATION_CODES, createViolation } from '../validation/violation.js';
import { toGroupsKey } from './groups-key.js';
import { buildIri, parseIri } from '../metadata/iri.js';
import type { ItemId } from '../metadata/types.js';
import { applyMergePatch } from './merge-patch.js';
import { UploadedFile } from '../files/uploaded-file.js';
import { findNul } from './nul-character.js';

// ajv-formats is CommonJS; its default export arrives wrapped under ESM.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (
  ajv: Ajv,
) => Ajv;

export interface DenormalizeInput {
  readonly resource: ResourceMetadata;
  readonly mode: WriteMode;
  readonly body: unknown;
  /** The item read (PUT, PATCH), or null (POST). */
  readonly previous: Entity | null;
  readonly groups: WriteGroups;
  /** The caller, for fields with their own access rule (denied: ignored on input). */
  readonly caller?: Caller;
}

export interface DenormalizeResult {
  readonly data: Entity;
  readonly violations: ConstraintViolation[];
}

export interface RelationReader {
  /** Which of `ids` exist. */
  existingIds(resource: ResourceMetadata, ids: readonly ItemId[]): Promise<Set<ItemId>>;
  /** One item, for a nested update. */
  readItem(resource: ResourceMetadata, id: ItemId): Promise<Entity | null>;
}

export interface Denormalizer {
  denormalize(input: DenormalizeInput): Promise<DenormalizeResult>;
  /**
   * One step per input validator of a write operation with fixed groups that is not compiled yet; a step compiles it.
   * The plugin runs them once the server listens (`warm-up.ts`); a request that needs one first compiles it itself.
   */
  pendingValidators(): (() => void)[];
}

const TYPE_NAMES: Record<string, string> = {
  string: 'string',
  text: 'string',
  password: 'string',
  file: 'file',
  datetime: 'string',
  date: 'string',
  integer: 'integer',
  float: 'number',
  boolean: 'boolean',
  'string[]': 'array',
};

function typeViolation(field: FieldMetadata, error: ErrorObject, path: string, nested: boolean): ConstraintViolation {
  if (error.keyword === 'format' && field.kind === 'scalar' && (field.type === 'datetime' || field.type === 'date')) {
    return field.type === 'date'
      ? createViolation(path, 'This value is not a valid date.', VIOLATION_CODES.date)
      : createViolation(path, 'This value is not a valid datetime.', VIOLATION_CODES.dateTime);
  }
  if (error.keyword === 'minimum' || error.keyword === 'maximum') {
    return createViolation(path, 'This value should be between -2147483648 and 2147483647.', VIOLATION_CODES.range);
  }
  if (field.kind !== 'scalar') {
    const what =
      field.kind === 'toOne'
        ? nested
          ? 'an IRI string or a nested object'
          : 'an IRI string'
        : 'an array of IRI strings';
    return createViolation(path, `This value should be ${what} of "${field.target}" items.`, VIOLATION_CODES.type);
  }
  const expected = /\[\d+\]$/.test(path) ? 'string' : (TYPE_NAMES[field.type] ?? 'string');
  return createViolation(path, `This value should be of type ${expected}.`, VIOLATION_CODES.type);
}

/** `/roles/1` → `roles[1]`. */
const toPropertyPath = (instancePath: string): string =>
  instancePath
    .slice(1)
    .split('/')
    .map((segment, index) => (index === 0 ? segment : /^\d+$/.test(segment) ? `[${segment}]` : `.${segment}`))
    .join('');

/**
 * The uploads of file fields, taken out of `values` before the JSON Schema check (an upload is no JSON value): a file
 * field takes an upload (a `multipart/form-data` part) or null, nothing else.
 */
function takeUploads(
  fields: readonly FieldMetadata[],
  values: Record<string, unknown>,
  prefix: string,
  violations: ConstraintViolation[],
  failed: Set<string>,
): Record<string, UploadedFile> {
  const uploads: Record<string, UploadedFile> = {};
  for (const field of fields) {
    if (field.kind !== 'scalar' || field.type !== 'file' || !Object.hasOwn(values, field.name)) continue;
    const value = values[field.name];
    if (value === null) continue;
    delete values[field.name];
    if (value instanceof UploadedFile) uploads[field.name] = value;
    else {
      violations.push(createViolation(prefix + field.name, 'This value should be of type file.', VIOLATION_CODES.type));
      failed.add(field.name);
    }
  }
  return uploads;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

export function createDenormalizer(registry: MetadataRegistry, reader: RelationReader): Denormalizer {
  const ajv = new Ajv({ allErrors: true, strict: true, strictNumbers: true, coerceTypes: false });
  addFormats(ajv);
  ajv.addFormat('iri-reference', true);
  ajv.addFormat('binary', true);

  const keyOf = (resource: ResourceMetadata, mode: WriteMode, groups: WriteGroups): string =>
    `${resource.name}|${mode}|${toGroupsKey(groups)}`;
  /** Per resource, mode and groups: the body's validator, and the fields it may write (in order, and by name). */
  const validators = new Map<
    string,
    {
      validate: ValidateFunction;
      fields: readonly FieldMetadata[];
      fieldsByName: ReadonlyMap<string, FieldMetadata>;
    }
  >();
  function validatorFor(resource: ResourceMetadata, mode: WriteMode, groups: WriteGroups) {
    const key = keyOf(resource, mode, groups);
    let found = validators.get(key);
    if (!found) {
      const fields = listWritableFields(resource, mode, groups);
      found = {
        validate: ajv.compile(buildInputSchema(resource, mode, groups, registry)),
        fields,
        fieldsByName: new Map(fields.map((field) => [field.name, field])),
      };
      validators.set(key, found);
    }
    return found;
  }
  // Fixed groups: what the operations will validate with is known now. Compiling it all is a visible part of a start
  // (docs/performance.md); `pendingValidators` lets the plugin do it right after the server listens instead.
  const fixedValidators = registry.resources.flatMap((resource) =>
    resource.operations.flatMap((operation) => {
      const groups = operation.denormalizationGroups;
      if (!operation.writeMode || typeof groups === 'function') return [];
      return [{ resource, mode: operation.writeMode, groups: toFixedGroups(groups) }];
    }),
  );

  /**
   * An IRI → the id of an item of `target`, or a violation. Existence is checked afterwards, in one query per target.
   */
  function reference(
    value: string,
    target: ResourceMetadata,
    path: string,
    violations: ConstraintViolation[],
  ): ItemId | undefined {
    const parsed = parseIri(value, registry);
    if (!parsed) violations.push(createViolation(path, `Invalid IRI "${value}".`, VIOLATION_CODES.invalidRelation));
    else if (parsed.resource !== target)
      violations.push(
        createViolation(
          path,
          `IRI "${value}" is not an item of type "${target.name}".`,
          VIOLATION_CODES.invalidRelation,
        ),
      );
    else return parsed.id;
    return undefined;
  }

  async function denormalize(input: DenormalizeInput, prefix: string): Promise<DenormalizeResult> {
    const { resource, mode, body, previous, groups } = input;
    const { validate, fields, fieldsByName } = validatorFor(resource, mode, groups);
    const source = body as Record<string, unknown>;
    const values: Record<string, unknown> = {};
    /**
     * Fields with their own rule that denies this caller: ignored, like any field the client may not write, and kept.
     */
    const denied = new Set<string>();
    for (const field of fields) {
      if (field.security && !grantsField(field.security, input.caller ?? ANONYMOUS, previous)) denied.add(field.name);
      else if (Object.hasOwn(source, field.name)) values[field.name] = source[field.name];
    }

    const violations: ConstraintViolation[] = [];
    const failed = new Set<string>();
    const uploads = takeUploads(fields, values, prefix, violations, failed);
    if (!validate(values)) {
      for (const error of validate.errors ?? []) {
        const path = toPropertyPath(error.instancePath);
        const name = path.split(/[.[]/)[0]!;
        const field = fieldsByName.get(name);
        if (!field || failed.has(name)) continue;
        failed.add(name);
        violations.push(
          values[name] === null
            ? createViolation(prefix + name, 'This value should not be null.', VIOLATION_CODES.notNull)
            : typeViolation(
                field,
                error,
                prefix + path,
                field.kind !== 'scalar' && acceptsNested(field, groups, registry),
              ),
        );
      }
    }
    for (const name of failed) delete values[name];
    Object.assign(values, uploads);

    // Relations: IRIs → ids (checked to exist below), nested objects → nested writes.
    const wanted = new Map<ResourceMetadata, { path: string; iri: string; id: ItemId; field: string }[]>();
    const want = (target: ResourceMetadata, ref: { path: string; iri: string; id: ItemId; field: string }) =>
      wanted.set(target, [...(wanted.get(target) ?? []), ref]);
    for (const field of fields) {
      if (field.kind === 'scalar' || !Object.hasOwn(values, field.name)) continue;
      const value = values[field.name];
      const target = registry.resource(field.target);
      if (field.kind === 'toOne') {
        if (value === null) continue;
        if (typeof value === 'string') {
          const id = reference(value, target, prefix + field.name, violations);
          if (id === undefined) failed.add(field.name);
          else {
            values[field.name] = id;
            want(target, { path: prefix + field.name, iri: value, id, field: field.name });
          }
          continue;
        }
        // A merge patch merges a nested object without `@id` into the item the relation holds (API Platform's
        // deep_object_to_populate); POST and PUT create one.
        const current =
          mode === 'update' && typeof previous?.[field.name] === 'number'
            ? (previous[field.name] as number)
            : undefined;
        const nested = await nestedWrite(
          field,
          target,
          value as Record<string, unknown>,
          groups,
          `${prefix}${field.name}.`,
          violations,
          input.caller,
          current,
        );
        if (nested) values[field.name] = nested;
        else failed.add(field.name);
        continue;
      }
      const ids: ItemId[] = [];
      (value as string[]).forEach((iri, index) => {
        const id = reference(iri, target, `${prefix}${field.name}[${index}]`, violations);
        if (id === undefined) failed.add(field.name);
        else {
          ids.push(id);
          want(target, { path: `${prefix}${field.name}[${index}]`, iri, id, field: field.name });
        }
      });
      values[field.name] = [...new Set(ids)];
    }
    for (const [target, refs] of wanted) {
      const found = await reader.existingIds(
        target,
        refs.map((r) => r.id),
      );
      for (const ref of refs) {
        if (found.has(ref.id)) continue;
        violations.push(createViolation(ref.path, `Item not found for "${ref.iri}".`, VIOLATION_CODES.invalidRelation));
        failed.add(ref.field);
      }
    }
    for (const name of failed) delete values[name];

    for (const field of fields) {
      const value = values[field.name];
      // RFC 3339 has a year 0000; PostgreSQL's date type has not (it would be a 500 there, and stored on SQLite).
      if (field.kind === 'scalar' && field.type === 'date' && typeof value === 'string' && value.startsWith('0000')) {
        violations.push(createViolation(prefix + field.name, 'This value is not a valid date.', VIOLATION_CODES.date));
        delete values[field.name];
        failed.add(field.name);
        continue;
      }
      if (field.kind !== 'scalar' || field.type !== 'datetime' || typeof value !== 'string') continue;
      const date = new Date(value);
      // RFC 3339 allows what JavaScript cannot represent (a leap second, 23:59:60): refused, not a 500.
      if (Number.isNaN(date.getTime())) {
        violations.push(
          createViolation(prefix + field.name, 'This value is not a valid datetime.', VIOLATION_CODES.dateTime),
        );
        delete values[field.name];
        failed.add(field.name);
      } else values[field.name] = date;
    }

    const data: Entity = {};
    const stored = resource.fields.filter((f) => f.kind !== 'toMany' || f.joinTable !== undefined);
    if (mode === 'create') {
      for (const field of stored)
        data[field.name] = Object.hasOwn(values, field.name) ? values[field.name] : resolveInitialValue(field);
    } else if (mode === 'replace') {
      Object.assign(data, previous);
      for (const field of fields) {
        if (field.kind === 'toMany' && field.joinTable === undefined) continue;
        if (Object.hasOwn(values, field.name)) data[field.name] = values[field.name];
        // A write-only secret left out keeps its value, as does a field the caller may not write; anything else goes
        // back to its default.
        else if (
          !(field.kind === 'scalar' && (field.type === 'password' || field.type === 'file')) &&
          !failed.has(field.name) &&
          !denied.has(field.name)
        )
          data[field.name] = resolveInitialValue(field);
      }
    } else {
      Object.assign(data, previous);
      for (const [name, value] of Object.entries(values)) {
        const field = fieldsByName.get(name)!;
        data[name] =
          field.kind === 'scalar' && field.type === 'json' ? applyMergePatch(previous?.[name], value) : value;
      }
    }
    return { data, violations };
  }

  /**
   * A nested object on a to-one relation: an update of the item named by its `@id` (or, in a merge patch, of the item
   * the relation holds, `current`), or a new item when cascading.
   */
  async function nestedWrite(
    field: ToOneFieldMetadata,
    target: ResourceMetadata,
    value: Record<string, unknown>,
    groups: WriteGroups,
    prefix: string,
    violations: ConstraintViolation[],
    caller: Caller | undefined,
    current: number | undefined,
  ): Promise<NestedWrite | undefined> {
    // The schema already refused objects where the relation takes none (`acceptsNested`).
    const path = prefix.slice(0, -1);
    const iri = value['@id'] !== undefined || current === undefined ? value['@id'] : buildIri(target, current);
    if (iri !== undefined) {
      const id = typeof iri === 'string' ? reference(iri, target, path, violations) : undefined;
      if (typeof iri !== 'string')
        violations.push(
          createViolation(path, 'The nested "@id" must be an IRI string.', VIOLATION_CODES.invalidRelation),
        );
      if (id === undefined) return undefined;
      const existing = await reader.readItem(target, id);
      if (!existing) {
        violations.push(
          createViolation(path, `Item not found for "${iri as string}".`, VIOLATION_CODES.invalidRelation),
        );
        return undefined;
      }
      const result = await denormalize(
        { resource: target, mode: 'update', body: value, previous: existing, groups, caller },
        prefix,
      );
      violations.push(...result.violations);
      return new NestedWrite(target.name, result.data, id, existing);
    }
    if (!field.cascadePersist) {
      violations.push(
        createViolation(
          path,
          `A new "${target.name}" cannot be created through "${field.name}" (no cascadePersist). Give an IRI, or an object with an "@id".`,
          VIOLATION_CODES.invalidRelation,
        ),
      );
      return undefined;
    }
    const result = await denormalize(
      { resource: target, mode: 'create', body: value, previous: null, groups, caller },
      prefix,
    );
    violations.push(...result.violations);
    return new NestedWrite(target.name, result.data, undefined);
  }

  /**
   * A PUT replaces the item of its path: an `@id` in its body must be that item's IRI (API Platform answers 400 too).
   */
  function mustNameItself(iri: unknown, input: DenormalizeInput): void {
    const id = input.previous?.id;
    if (id === undefined) return;
    const parsed = typeof iri === 'string' ? parseIri(iri, registry) : null;
    if (parsed?.resource === input.resource && parsed.id === id) return;
    throw new ApiError(
      'IDENTIFIER_MISMATCH',
      `The "@id" of the body, ${JSON.stringify(iri)}, is not the IRI of the item at this path, "${buildIri(input.resource, id)}".`,
    );
  }

  return {
    async denormalize(input) {
      const { body, mode } = input;
      if (body === undefined) throw new ApiError('EMPTY_BODY', 'The request body is empty; send a JSON object.');
      if (!isObject(body)) throw new ApiError('BODY_NOT_OBJECT', 'The request body must be a JSON object.');
      if (mode === 'create' && '@id' in body)
        throw new ApiError('UPDATE_NOT_ALLOWED', 'Update is not allowed for this operation.');
      if (mode === 'replace' && '@id' in body) mustNameItself(body['@id'], input);
      const nul = findNul(body);
      if (nul !== undefined) {
        throw new ApiError('VALIDATION_FAILED', `${nul}: This value must not contain the NUL character.`, {
          violations: [createViolation(nul, 'This value must not contain the NUL character.', VIOLATION_CODES.nul)],
        });
      }
      return denormalize(input, '');
    },
    pendingValidators: () =>
      fixedValidators
        .filter(({ resource, mode, groups }) => !validators.has(keyOf(resource, mode, groups)))
        .map(
          ({ resource, mode, groups }) =>
            () =>
              void validatorFor(resource, mode, groups),
        ),
  };
}
