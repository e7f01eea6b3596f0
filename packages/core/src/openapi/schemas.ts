/**
 * The component schemas of the OpenAPI document, named as API Platform names them: `Book.jsonld` and `Book` for an
 * item read without groups, `Book.jsonld-product.read` / `Book-product.read` with read groups (`:` becomes `.`),
 * `Book.create` / `Book.replace` / `Book.update` (with `-<write groups>`) for request bodies, `AuthorStats.jsonld` /
 * `AuthorStats` for the shapes (DTOs) custom operations take and send, the Hydra collection base and the error bodies.
 * Responses follow the normalizer's plan for the operation's read groups, so a relation is an IRI or an embedded
 * object exactly as the serializer decides; request bodies are the input schemas routing validates with, plus the
 * fields a create needs.
 */
import type { FieldMetadata, MetadataRegistry, ResourceMetadata } from '../metadata/types.js';
import {
  buildInputSchema,
  buildFieldInputSchema,
  type JsonSchema,
  type WriteMode,
  listWritableFields,
} from '../schema/input-schema.js';
import type { ActiveGroups, NormalizationPlan } from '../serializer/normalize.js';
import { type PlanOf, listWritableFieldNames } from '../serializer/field-access.js';
import { isRequiredField } from '../schema/required-fields.js';

/** The output formats documented for every operation. */
export type DocumentedFormat = 'jsonld' | 'json';

type PlannedField = NormalizationPlan['fields'][number];

export const toSchemaRef = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });

/** `-product.read_product.admin` for groups, '' for none; only characters OpenAPI allows in component names. */
export function toGroupsSuffix(groups: ActiveGroups): string {
  if (groups === null || groups.size === 0) return '';
  return `-${[...groups]
    .sort()
    .join('_')
    .replace(/[^A-Za-z0-9._-]/g, '.')}`;
}

const IRI: JsonSchema = { type: 'string', format: 'iri-reference' };

const nullable = (schema: JsonSchema, field: FieldMetadata): JsonSchema => {
  if (!field.nullable) return schema;
  if (typeof schema.type === 'string') return { ...schema, type: [schema.type, 'null'] };
  return { anyOf: [schema, { type: 'null' }] };
};

/** A stable description of a plan, to tell an embedded plan (cycles cut) from the resource's own. */
function signature(plan: NormalizationPlan): string {
  const part = (field: PlannedField): string => {
    switch (field.mode) {
      case 'value':
        return field.name;
      case 'iri':
      case 'iris':
        return `${field.name}:${field.mode}`;
      case 'embed':
      case 'embedMany':
        return `${field.name}:${field.mode}(${signature(field.plan)})`;
    }
  };
  return `${plan.resource.name}{${plan.fields.map(part).join(',')}}`;
}

/** The error bodies of `response/render-error.ts`, as schemas. */
const ERROR_SCHEMAS: Record<string, JsonSchema> = {
  'Error.jsonld': {
    type: 'object',
    description: 'An error, as JSON-LD (hydra:Error) and RFC 7807 problem details at once.',
    properties: {
      '@context': { type: 'string', readOnly: true, example: '/api/contexts/Error' },
      '@type': { type: 'string', const: 'hydra:Error', readOnly: true },
      'hydra:title': { type: 'string', example: 'An error occurred' },
      'hydra:description': { type: 'string', description: 'What went wrong.' },
      title: { type: 'string', example: 'An error occurred' },
      detail: { type: 'string', description: 'What went wrong (the same text as hydra:description).' },
      status: { type: 'integer', example: 404 },
      type: { type: 'string', example: '/errors/404' },
    },
    required: ['@type', 'hydra:title', 'hydra:description', 'status'],
  },
  Error: {
    type: 'object',
    description: 'An error, as RFC 7807 problem details (for clients that prefer plain JSON).',
    properties: {
      type: { type: 'string', example: '/errors/404' },
      title: { type: 'string', example: 'An error occurred' },
      detail: { type: 'string', description: 'What went wrong.' },
      status: { type: 'integer', example: 404 },
    },
    required: ['type', 'title', 'detail', 'status'],
  },
  ConstraintViolation: {
    type: 'object',
    description: 'One failed constraint.',
    properties: {
      propertyPath: {
        type: 'string',
        description: 'The field, or a path such as `author.name`; empty for the whole item.',
        example: 'title',
      },
      message: { type: 'string', example: 'This value should not be blank.' },
      code: { type: 'string', description: 'The constraint code (a UUID, as Symfony names them).' },
    },
    required: ['propertyPath', 'message'],
  },
  'ConstraintViolationList.jsonld': {
    type: 'object',
    description: 'Every violation of the request at once.',
    properties: {
      '@context': { type: 'string', readOnly: true, example: '/api/contexts/ConstraintViolationList' },
      '@type': { type: 'string', const: 'ConstraintViolationList', readOnly: true },
      'hydra:title': { type: 'string', example: 'An error occurred' },
      'hydra:description': {
        type: 'string',
        description: 'Each violation as `<propertyPath>: <message>`, one per line.',
      },
      violations: { type: 'array', items: toSchemaRef('ConstraintViolation') },
    },
    required: ['@type', 'hydra:title', 'hydra:description', 'violations'],
  },
  ConstraintViolationList: {
    type: 'object',
    description: 'Every violation of the request at once, as RFC 7807 problem details.',
    properties: {
      type: { type: 'string' },
      title: { type: 'string', example: 'An error occurred' },
      detail: { type: 'string', description: 'Each violation as `<propertyPath>: <message>`, one per line.' },
      status: { type: 'integer', example: 400 },
      violations: { type: 'array', items: toSchemaRef('ConstraintViolation') },
    },
    required: ['title', 'detail', 'status', 'violations'],
  },
  HydraCollectionBaseSchema: {
    type: 'object',
    description: 'A page of a collection (hydra:Collection) with its view and search template.',
    properties: {
      '@context': { type: 'string', readOnly: true },
      '@id': { type: 'string', format: 'iri-reference', readOnly: true },
      '@type': { type: 'string', const: 'hydra:Collection', readOnly: true },
      'hydra:totalItems': { type: 'integer', minimum: 0, description: 'Absent with partial and cursor pagination.' },
      'hydra:view': {
        type: 'object',
        description: 'The page links.',
        properties: {
          '@id': { type: 'string', format: 'iri-reference' },
          '@type': { type: 'string' },
          'hydra:first': { type: 'string', format: 'iri-reference' },
          'hydra:last': { type: 'string', format: 'iri-reference' },
          'hydra:previous': { type: 'string', format: 'iri-reference' },
          'hydra:next': { type: 'string', format: 'iri-reference' },
        },
      },
      'hydra:search': {
        type: 'object',
        description: 'The filters, as an IRI template.',
        properties: {
          '@type': { type: 'string' },
          'hydra:template': { type: 'string' },
          'hydra:variableRepresentation': { type: 'string' },
          'hydra:mapping': {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                '@type': { type: 'string' },
                variable: { type: 'string' },
                property: { type: ['string', 'null'] },
                required: { type: 'boolean' },
              },
            },
          },
        },
      },
    },
  },
};

/** Builds the component schemas on demand, each once, and hands out references to them. */
export class SchemaCatalog {
  readonly schemas: Record<string, JsonSchema> = { ...ERROR_SCHEMAS };
  private readonly building = new Set<string>();
  private readonly writable = new Map<string, Set<string>>();

  constructor(
    private readonly registry: MetadataRegistry,
    private readonly planOf: PlanOf,
  ) {}

  /** A reference to the schema of an item as the operation's read groups render it. */
  item(resource: ResourceMetadata, groups: ActiveGroups, format: DocumentedFormat): JsonSchema {
    const name = `${resource.name}${format === 'jsonld' ? '.jsonld' : ''}${toGroupsSuffix(groups)}`;
    if (!this.schemas[name] && !this.building.has(name)) {
      this.building.add(name);
      this.schemas[name] = this.itemSchema(this.planOf(resource, groups), groups, format);
      this.building.delete(name);
    }
    return toSchemaRef(name);
  }

  /** The body of a collection read: a hydra:Collection (JSON-LD) or a bare array (JSON). */
  collection(resource: ResourceMetadata, groups: ActiveGroups, format: DocumentedFormat): JsonSchema {
    const items = { type: 'array', items: this.item(resource, groups, format) };
    if (format === 'json') return items;
    return {
      allOf: [
        toSchemaRef('HydraCollectionBaseSchema'),
        { type: 'object', required: ['hydra:member'], properties: { 'hydra:member': items } },
      ],
    };
  }

  /** A reference to the request body schema of a write: the input schema, plus what a create requires. */
  input(
    resource: ResourceMetadata,
    mode: WriteMode,
    groups: ActiveGroups,
    validationGroups: ReadonlySet<string> | 'unknown',
  ): JsonSchema {
    const name = `${resource.name}.${mode}${toGroupsSuffix(groups)}`;
    if (!this.schemas[name]) {
      const schema = buildInputSchema(resource, mode, groups, this.registry);
      const properties = schema.properties as Record<string, JsonSchema>;
      if (resource.description) schema.description = resource.description;
      if (mode === 'create') {
        // Groups chosen per request by a function: only what storage demands is sure to be required.
        const required = resource.fields.filter(
          (f) =>
            properties[f.name] &&
            isRequiredField(f, validationGroups === 'unknown' ? new Set<string>() : validationGroups),
        );
        if (required.length > 0) schema.required = required.map((f) => f.name);
      }
      this.schemas[name] = schema;
    }
    return toSchemaRef(name);
  }

  /**
   * A reference to the schema of a shape (an operation's input or output DTO): `AuthorStats.jsonld` / `AuthorStats`
   * (with `-<groups>`), named as a resource's item schemas. One schema serves the shape's inputs and outputs: the
   * fields the groups send when it is some operation's output (read-only unless also accepted) and those they accept
   * when it is some operation's input (write-only unless also sent). JSON-LD (responses only: request bodies are the
   * plain schema) adds `@context`, `@id` (the request's path: a shape has no IRI) and `@type`, never an `id`.
   */
  shape(shape: ResourceMetadata, groups: ActiveGroups, format: DocumentedFormat): JsonSchema {
    const name = `${shape.name}${format === 'jsonld' ? '.jsonld' : ''}${toGroupsSuffix(groups)}`;
    if (!this.schemas[name]) {
      const operations = this.registry.resources.flatMap((resource) => resource.operations);
      const output = operations.some(
        (operation) => operation.output?.name === shape.name && operation.stages.serialize,
      );
      const input = operations.some(
        (operation) => operation.input?.name === shape.name && operation.stages.deserialize,
      );
      const sent = new Map(output ? this.planOf(shape, groups).fields.map((planned) => [planned.name, planned]) : []);
      const accepted = new Set(input ? listWritableFields(shape, 'create', groups).map((field) => field.name) : []);
      const properties: Record<string, JsonSchema> = {};
      const required: string[] = [];
      if (format === 'jsonld') {
        properties['@context'] = { readOnly: true, oneOf: [{ type: 'string' }, { type: 'object' }] };
        properties['@id'] = { type: 'string', format: 'iri-reference', readOnly: true };
        properties['@type'] = { type: 'string', const: shape.name, readOnly: true };
        required.push('@id', '@type');
      }
      for (const field of shape.fields) {
        const planned = sent.get(field.name);
        if (!planned && !accepted.has(field.name)) continue;
        const { writeOnly: _writeOnly, ...schema } = buildFieldInputSchema(field);
        if (!accepted.has(field.name)) schema.readOnly = true;
        if (!planned) schema.writeOnly = true;
        properties[field.name] = schema;
        if (isRequiredField(field, null) && planned?.rule === undefined) required.push(field.name);
      }
      const schema: JsonSchema = { type: 'object' };
      if (shape.description) schema.description = shape.description;
      this.schemas[name] = required.length > 0 ? { ...schema, properties, required } : { ...schema, properties };
    }
    return toSchemaRef(name);
  }

  private writableNames(resource: ResourceMetadata): Set<string> {
    let names = this.writable.get(resource.name);
    if (!names) this.writable.set(resource.name, (names = listWritableFieldNames(resource)));
    return names;
  }

  private itemSchema(plan: NormalizationPlan, groups: ActiveGroups, format: DocumentedFormat): JsonSchema {
    const { resource } = plan;
    const properties: Record<string, JsonSchema> = {};
    const required: string[] = [];
    if (format === 'jsonld') {
      properties['@context'] = { readOnly: true, oneOf: [{ type: 'string' }, { type: 'object' }] };
      properties['@id'] = {
        type: 'string',
        format: 'iri-reference',
        readOnly: true,
        example: `${resource.collectionPath}/1`,
      };
      properties['@type'] = { type: 'string', const: resource.name, readOnly: true };
      required.push('@id', '@type');
    }
    properties.id =
      resource.identifier.type === 'uuid'
        ? { type: 'string', format: 'uuid', readOnly: true }
        : { type: 'integer', readOnly: true };
    required.push('id');
    const writable = this.writableNames(resource);
    for (const planned of plan.fields) {
      const field = resource.fieldsByName.get(planned.name)!;
      const schema = this.fieldSchema(field, planned, groups, format);
      if (field.description && !schema.description) schema.description = field.description;
      if (!writable.has(field.name)) schema.readOnly = true;
      properties[field.name] = schema;
      // A field with its own access rule may be left out of a response.
      if (isRequiredField(field, null) && planned.rule === undefined) required.push(field.name);
    }
    const schema: JsonSchema = { type: 'object' };
    if (resource.description) schema.description = resource.description;
    return { ...schema, properties, required };
  }

  private fieldSchema(
    field: FieldMetadata,
    planned: PlannedField,
    groups: ActiveGroups,
    format: DocumentedFormat,
  ): JsonSchema {
    switch (planned.mode) {
      case 'value': {
        const { writeOnly: _writeOnly, ...schema } = buildFieldInputSchema(field);
        return schema;
      }
      case 'iri':
        return nullable({ ...IRI, example: `${planned.target.collectionPath}/1` }, field);
      case 'iris':
        return { type: 'array', items: { ...IRI, example: `${planned.target.collectionPath}/1` } };
      case 'embed':
        return nullable(this.embedded(planned.target, planned.plan, groups, format), field);
      case 'embedMany':
        return { type: 'array', items: this.embedded(planned.target, planned.plan, groups, format) };
    }
  }

  /** The target's named schema when the embedded plan is the target's own; else (a cycle cut) the plan inline. */
  private embedded(
    target: ResourceMetadata,
    plan: NormalizationPlan,
    groups: ActiveGroups,
    format: DocumentedFormat,
  ): JsonSchema {
    if (signature(plan) === signature(this.planOf(target, groups))) return this.item(target, groups, format);
    return this.itemSchema(plan, groups, format);
  }
}
