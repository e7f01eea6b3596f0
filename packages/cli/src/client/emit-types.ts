/**
 * `types.ts`: one interface per component schema the client uses (items as each operation's read groups render them,
 * request bodies per write mode and write groups, embedded shapes), the query parameters of each collection read, and
 * the fixed types (JSON values, the Hydra collection, error bodies).
 *
 * Names follow the OpenAPI component names: `Book.jsonld` → `Book`, `Product.jsonld-product.read` →
 * `ProductProductRead`, `Book.create` → `BookCreate`, `Book.update-book.write` → `BookUpdateBookWrite`. When every read
 * of a resource has one shape, `<Resource>` names it too (`type Product = ProductProductRead`).
 */
import {
  type FieldMetadata,
  isRequiredField,
  type MetadataRegistry,
  type OpenApiDocument,
  type ScalarFieldMetadata,
  type ToOneFieldMetadata,
} from '@resource-api/core';
import { docComment, pascalCase, type TypeNames } from './naming.js';
import type { ClientOperation, ShapeUse } from './operations.js';
import { paramsType } from './query-params.js';
import { type JsonSchema, objectType, type TypeContext } from './schema-to-ts.js';
import { HEADER, TYPES_HEAD } from './runtime-source.js';

/** How the doc comment of each kind of body begins. */
const WHAT = {
  create: (resource: string) => `A new ${resource}, as POST takes it`,
  replace: (resource: string) => `A ${resource} replaced as a whole, as PUT takes it`,
  update: (resource: string) =>
    `Changes to a ${resource}, as PATCH takes them (a JSON merge patch: what is left out is kept)`,
} as const;

const COMPONENT = /^([A-Z][A-Za-z0-9]*)(?:\.(jsonld|create|replace|update))?(-.+)?$/;

interface ParsedComponent {
  readonly resource: string;
  /** `jsonld` (an item as read), `create` / `replace` / `update` (a body), or undefined (plain JSON, unused). */
  readonly kind: string | undefined;
  /** `-product.read`, or '' without groups. */
  readonly suffix: string;
}

function parseComponent(component: string): ParsedComponent {
  const match = COMPONENT.exec(component);
  if (!match) throw new Error(`Unexpected component schema name "${component}".`);
  return { resource: match[1]!, kind: match[2], suffix: match[3] ?? '' };
}

/** `BookCreateBookWrite` for `Book.create-book.write`; reads drop `jsonld`. */
function wantedName(component: string): string {
  const { resource, kind, suffix } = parseComponent(component);
  return `${resource}${kind && kind !== 'jsonld' ? pascalCase(kind) : ''}${pascalCase(suffix)}`;
}

/** The JSON schema of a shape's field, as a resource's field is documented (type, format, description, null). */
function shapeFieldSchema(field: ScalarFieldMetadata): JsonSchema {
  const base: Record<string, unknown> =
    field.type === 'integer'
      ? { type: 'integer' }
      : field.type === 'float'
        ? { type: 'number' }
        : field.type === 'boolean'
          ? { type: 'boolean' }
          : field.type === 'datetime'
            ? { type: 'string', format: 'date-time' }
            : field.type === 'date'
              ? { type: 'string', format: 'date' }
              : field.type === 'json'
                ? {}
                : field.type === 'string[]'
                  ? { type: 'array', items: { type: 'string' } }
                  : { type: 'string' };
  if (field.description) base.description = field.description;
  if (field.nullable && typeof base.type === 'string') base.type = [base.type, 'null'];
  return base;
}

const inGroups = (field: FieldMetadata, groups: readonly string[] | null) =>
  groups === null || field.groups.some((g) => groups.includes(g));

/**
 * A shape's type as one use sees it. Output: `@context`, `@id` (the request's path), `@type`, then the readable
 * fields in the read groups, required unless nullable (a null may be left out). Input: the writable fields in the
 * write groups, required as validation demands.
 */
function shapeType(use: ShapeUse): string {
  const { shape } = use;
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  if (use.direction === 'output') {
    properties['@context'] = { type: 'string' };
    properties['@id'] = { type: 'string', description: 'The path of the request: a shape has no IRI of its own.' };
    properties['@type'] = { const: shape.name };
    required.push('@id', '@type');
    for (const field of shape.fields) {
      if (field.kind !== 'scalar' || !field.readable || !inGroups(field, use.groups)) continue;
      properties[field.name] = shapeFieldSchema(field);
      if (!field.nullable && field.security === undefined) required.push(field.name);
    }
  } else {
    const validation = new Set(use.validationGroups);
    for (const field of shape.fields) {
      if (field.kind !== 'scalar' || !field.writable || !inGroups(field, use.groups)) continue;
      properties[field.name] = shapeFieldSchema(field);
      if (isRequiredField(field, validation)) required.push(field.name);
    }
  }
  return objectType({ type: 'object', properties }, { ref: () => 'never' }, '', required);
}

export interface EmittedTypes {
  readonly source: string;
  /** The type name of a component schema. */
  readonly typeOf: (component: string) => string;
  /** The name of an operation's query parameter type and whether it must be given; undefined without parameters. */
  readonly paramsOf: (operation: ClientOperation) => { readonly name: string; readonly required: boolean } | undefined;
}

/** `interface` for an object type, `type` for anything else (an empty body is `Record<string, never>`). */
const declare = (name: string, type: string): string =>
  type.startsWith('{') ? `export interface ${name} ${type}` : `export type ${name} = ${type};`;

/**
 * The required fields of PUT bodies: a PUT that leaves out what a create needs is a 400 (under the operation's
 * validation groups), except a secret, which keeps its value. The document marks `required` on create bodies only.
 */
function requiredOnReplace(
  operations: readonly ClientOperation[],
  schemas: Record<string, JsonSchema>,
): Map<string, string[]> {
  const required = new Map<string, string[]>();
  const kept = (f: FieldMetadata) => f.kind === 'scalar' && f.type === 'password';
  for (const operation of operations) {
    if (operation.metadata.writeMode !== 'replace' || !operation.body || !schemas[operation.body.component]) continue;
    const groups =
      typeof operation.metadata.validationGroups === 'function'
        ? new Set<string>()
        : new Set(operation.metadata.validationGroups);
    const properties = Object.keys((schemas[operation.body.component]?.properties ?? {}) as object);
    required.set(
      operation.body.component,
      operation.resource.fields
        .filter((f) => properties.includes(f.name) && !kept(f) && isRequiredField(f, groups))
        .map((f) => f.name),
    );
  }
  return required;
}

/** The groups a component suffix stands for (`-product.read` for `product:read`), to name them in doc comments. */
function groupsBySuffix(operations: readonly ClientOperation[]): Map<string, readonly string[]> {
  const groupsOf = new Map<string, readonly string[]>();
  for (const { metadata } of operations) {
    for (const groups of [metadata.normalizationGroups, metadata.denormalizationGroups]) {
      if (Array.isArray(groups) && groups.length > 0) groupsOf.set(pascalCase([...groups].sort().join('_')), groups);
    }
  }
  return groupsOf;
}

/** One query parameter type per collection read, shared by a subresource whose parameters are the same. */
function emitParams(operations: readonly ClientOperation[], names: TypeNames) {
  const byOperation = new Map<ClientOperation, { name: string; required: boolean }>();
  const byType = new Map<string, { name: string; required: boolean }>();
  const blocks: string[] = [];
  // Collections first: a subresource with the same parameters reuses `<Resource>ListParams`.
  // Custom reads next, so the built-in collection's type keeps its name.
  const rank = (o: ClientOperation) => (o.metadata.kind === 'getSubresource' ? 2 : o.custom ? 1 : 0);
  const reads = [...operations].sort((a, b) => rank(a) - rank(b));
  for (const operation of reads) {
    if (operation.queryParameters.length === 0) continue;
    const { type, required } = paramsType(operation.queryParameters);
    let params = byType.get(type);
    if (!params) {
      const wanted =
        operation.metadata.kind === 'getSubresource' || operation.custom
          ? `${operation.owner.name}${pascalCase(operation.methodName)}Params`
          : `${operation.resource.name}ListParams`;
      params = { name: names.claim(wanted), required };
      byType.set(type, params);
      blocks.push(
        `/** The query parameters of ${operation.metadata.method} ${operation.metadata.uriTemplate}: filters and pagination. */\n${declare(params.name, type)}\n`,
      );
    }
    byOperation.set(operation, params);
  }
  return { blocks, byOperation };
}

export function emitTypes(
  registry: MetadataRegistry,
  document: OpenApiDocument,
  operations: readonly ClientOperation[],
  names: TypeNames,
): EmittedTypes {
  const schemas = document.components.schemas as Record<string, JsonSchema>;
  const shapeUses = new Map(
    operations.flatMap((operation) => operation.shapes.map((shapeUse) => [shapeUse.key, shapeUse] as const)),
  );
  const sentShapes = new Set([...shapeUses.values()].filter((u) => u.direction === 'output').map((u) => u.shape.name));
  const typeNames = new Map<string, string>();
  const queue: string[] = [];
  /** `AuthorStats`, `ChangePassword`, `<Shape>Input` for a shape also sent, then the groups' suffix. */
  const shapeName = (shapeUse: ShapeUse) =>
    `${shapeUse.shape.name}${shapeUse.direction === 'input' && sentShapes.has(shapeUse.shape.name) ? 'Input' : ''}${pascalCase(shapeUse.groups?.join('_') ?? '')}`;
  const use = (component: string): string => {
    const shapeUse = shapeUses.get(component);
    if (!shapeUse && !schemas[component])
      throw new Error(`The OpenAPI document has no component schema "${component}".`);
    let name = typeNames.get(component);
    if (name === undefined) {
      typeNames.set(component, (name = names.claim(shapeUse ? shapeName(shapeUse) : wantedName(component))));
      queue.push(component);
    }
    return name;
  };

  /** A to-one relation that takes nested objects: an IRI, a new item (cascading), or `@id` plus the changes. */
  const nestedWrite = (component: ParsedComponent, field: ToOneFieldMetadata): string => {
    const types = ['string'];
    const create = `${field.target}.create${component.suffix}`;
    const update = `${field.target}.update${component.suffix}`;
    // Without the target's body in these groups, an object is all that can be said (a new item, or one with `@id`).
    if (field.cascadePersist && !schemas[create]) types.push('{ [key: string]: unknown }');
    else {
      if (field.cascadePersist) types.push(use(create));
      types.push(
        schemas[update] ? `({ '@id': string } & ${use(update)})` : `{ '@id': string; [key: string]: unknown }`,
      );
    }
    if (field.nullable) types.push('null');
    return types.join(' | ');
  };

  const required = requiredOnReplace(operations, schemas);
  const groupsOf = groupsBySuffix(operations);

  for (const operation of operations) {
    if (operation.response) use(operation.response);
    if (operation.body) use(operation.body.component);
  }

  const blocks: string[] = [];
  for (let component = queue.shift(); component !== undefined; component = queue.shift()) {
    const shapeUse = shapeUses.get(component);
    if (shapeUse) {
      const { shape, direction, groups } = shapeUse;
      const what =
        direction === 'output' ? `${shape.name}, as an operation sends it` : `${shape.name}, as an operation takes it`;
      const description = `${what}${groups ? `, with the groups ${groups.join(', ')}` : ''}.${shape.description ? `\n${shape.description}` : ''}`;
      blocks.push(`${docComment(description)}${declare(typeNames.get(component)!, shapeType(shapeUse))}\n`);
      continue;
    }
    const schema = schemas[component]!;
    const parsed = parseComponent(component);
    const resource = registry.resource(parsed.resource);
    const writes = parsed.kind === 'create' || parsed.kind === 'replace' || parsed.kind === 'update';
    const context: TypeContext = {
      ref: use,
      property(name, property) {
        if (!writes) return undefined;
        const field = resource.fields.find((f) => f.name === name);
        // The input schema offers an object only where the relation takes nested writes.
        const nested =
          field?.kind === 'toOne' && ((property.anyOf ?? []) as JsonSchema[]).some((s) => s.type === 'object');
        return nested ? nestedWrite(parsed, field) : undefined;
      },
    };
    const shape = objectType(
      schema,
      context,
      '',
      required.get(component) ?? (schema.required as string[] | undefined) ?? [],
    );
    const what = writes ? WHAT[parsed.kind as keyof typeof WHAT](parsed.resource) : `${parsed.resource} as read`;
    const groups = parsed.suffix
      ? `, with the groups ${groupsOf.get(pascalCase(parsed.suffix))?.join(', ') ?? parsed.suffix.slice(1)}`
      : '';
    const description = `${what}${groups}.${schema.description ? `\n${String(schema.description)}` : ''}`;
    blocks.push(`${docComment(description)}${declare(typeNames.get(component)!, shape)}\n`);
  }

  // `<Resource>` for the one shape every read of a resource has, when no component took the name.
  const aliases = new Map<string, string>();
  for (const resource of registry.resources) {
    const reads = new Set(
      operations
        .filter(
          (o) => o.resource === resource && o.metadata.method === 'GET' && o.response && !shapeUses.has(o.response),
        )
        .map((o) => o.response!),
    );
    const [only] = reads;
    if (reads.size === 1 && typeNames.get(only!) !== resource.name && !names.has(resource.name)) {
      blocks.push(
        `/** ${resource.name} as every read returns it. */\nexport type ${names.claim(resource.name)} = ${typeNames.get(only!)};\n`,
      );
      aliases.set(only!, resource.name);
    }
  }

  const params = emitParams(operations, names);
  blocks.push(...params.blocks);

  return {
    source: `${HEADER}\n${TYPES_HEAD}\n${blocks.join('\n')}`,
    typeOf: (component) => {
      const name = aliases.get(component) ?? typeNames.get(component);
      if (name === undefined) throw new Error(`No type was emitted for "${component}".`);
      return name;
    },
    paramsOf: (operation) => params.byOperation.get(operation),
  };
}
