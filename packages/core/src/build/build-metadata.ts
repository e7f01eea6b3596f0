/**
 * Builds the frozen metadata from the declarations, through an ordered list of small passes:
 * collect declarations → build fields → link relations → build filters → build operations → check constraints →
 * build subresources → freeze.
 * Every mistake is a `DeclarationError` naming the resource and the field, thrown at start-up.
 * build/ sits above the folders whose work it checks or builds with (the built-in filters of query/, the access rule
 * expressions of security/, the providers of state/), and under everything that reads a built registry.
 */
import { DeclarationError } from '../errors.js';
import { formatDidYouMean } from '../metadata/did-you-mean.js';
import { toPathSegment, toSnakeCase } from '../metadata/naming.js';
import { DEFAULT_PAGINATION } from '../query/pagination.js';
import { buildFields } from './passes/build-fields.js';
import { buildFilters } from './passes/build-filters.js';
import { buildOperations } from './passes/build-operations.js';
import { createShapeBuilder } from './passes/build-shapes.js';
import { readsOnItsOwn, writesOnItsOwn } from '../state/compose.js';
import { buildSubresources } from './passes/build-subresources.js';
import { buildSoftDelete, addSoftDeleteField, toRestoreOperation } from './passes/build-soft-delete.js';
import { checkConstraints } from './passes/check-constraints.js';
import { buildResourceMercure, type MercureOption } from './passes/build-mercure.js';
import { collectDeclarations, type ResourceInput } from './passes/collect-declarations.js';
import { linkRelations } from './passes/link-relations.js';
import type { ResourceDeclaration } from '../declare/types.js';
import { assertRelationIdTypes, buildIdentifier } from './passes/build-identifier.js';
import type {
  FieldMetadata,
  MetadataRegistry,
  OperationMetadata,
  PaginationOptions,
  ResourceMetadata,
} from '../metadata/types.js';

/** What `buildMetadata` needs: the resources and the settings of the plugin that shape the metadata. */
export interface BuildMetadataOptions {
  /** Declared resources: `defineResource` objects and `@ApiResource` classes, in any mix. */
  readonly resources: readonly ResourceInput[];
  /** The route prefix (default `/api`). */
  readonly prefix?: string;
  /** Global pagination settings; each defaults as in `DEFAULT_PAGINATION`. */
  readonly pagination?: Partial<PaginationOptions>;
  /** The order filter's parameter name (default `order`). */
  readonly orderParameterName?: string;
  /** The exists filter's parameter name (default `exists`). */
  readonly existsParameterName?: string;
}

/**
 * Builds the frozen metadata of the resources without a server (for tools, tests and the CLI); throws
 * `DeclarationError` on a wrong declaration.
 */
export function buildMetadata(options: BuildMetadataOptions): MetadataRegistry {
  const prefix = options.prefix ?? '/api';
  if (!/^(\/[A-Za-z0-9_-]+)*$/.test(prefix))
    throw new DeclarationError(`The prefix "${prefix}" must look like "/api" (or be empty).`);

  const declarations = collectDeclarations(options.resources).map(addSoftDeleteField);
  const names = new Set(declarations.map((d) => d.name));
  const fieldsByResource = new Map<string, FieldMetadata[]>(declarations.map((d) => [d.name, buildFields(d, names)]));
  linkRelations(fieldsByResource);
  const pagination = { ...DEFAULT_PAGINATION, ...options.pagination };
  const identifiers = new Map(declarations.map((d) => [d.name, buildIdentifier(d)]));
  const pathOf = new Map(declarations.map((d) => [d.name, `${prefix}/${d.plural ?? toPathSegment(d.name)}`]));
  const filterContext = {
    fieldsOf: (name: string) => fieldsByResource.get(name)!,
    referenceOf: (name: string) => ({ collectionPath: pathOf.get(name)!, identifier: identifiers.get(name)! }),
    orderParameterName: options.orderParameterName ?? 'order',
    existsParameterName: options.existsParameterName ?? 'exists',
  };

  const shapes = createShapeBuilder(names);
  const tables = new Map<string, string>();
  const resources: ResourceMetadata[] = declarations.map((declaration) => {
    const plural = declaration.plural ?? toPathSegment(declaration.name);
    const collectionPath = `${prefix}/${plural}`;
    const table = declaration.table ?? toSnakeCase(declaration.name);
    const clash = tables.get(table);
    if (clash)
      throw new DeclarationError(
        `Resource "${declaration.name}": table "${table}" is already used by resource "${clash}".`,
      );
    tables.set(table, declaration.name);
    const { filters, defaultOrder } = buildFilters(declaration, filterContext);
    const restore = toRestoreOperation(declaration, plural);
    const operations = buildOperations(declaration, { collectionPath, plural, pagination, prefix, shapes, restore });
    const softDelete = buildSoftDelete(declaration, fieldsByResource.get(declaration.name)!);
    return {
      name: declaration.name,
      shape: false,
      stored: !(readsOnItsOwn(declaration) && writesOnItsOwn(declaration)) || declaration.table !== undefined,
      description: declaration.description,
      plural,
      collectionPath,
      table,
      identifier: identifiers.get(declaration.name)!,
      fields: fieldsByResource.get(declaration.name)!,
      fieldsByName: new Map(fieldsByResource.get(declaration.name)!.map((field) => [field.name, field])),
      operations,
      // A soft-deleted resource's collections read the live items unless asked otherwise: its filter is always there.
      filters: softDelete ? [...filters, softDelete.filter] : filters,
      constraints: [...(declaration.constraints ?? [])],
      collectionFilter: declaration.collectionFilter,
      requireIfMatch: resolveRequireIfMatch(declaration, operations),
      types: resolveTypes(declaration),
      softDelete,
      defaultOrder,
      mercure: buildResourceMercure(declaration.mercure as MercureOption, `Resource "${declaration.name}"`),
      provider: declaration.provider,
      processor: declaration.processor,
    };
  });

  const declarationByName = new Map(declarations.map((d) => [d.name, d]));
  assertRelationIdTypes(resources, (name) => declarationByName.get(name)!);
  for (const resource of resources) {
    assertDistinctParameters(resource);
    checkConstraints(resource);
  }
  for (const shape of shapes.all()) checkConstraints(shape);
  const subresources = buildSubresources(resources, declarationByName, pagination, prefix);
  assertJoinTables(resources);
  for (const [name, operations] of subresources) {
    const resource = resources.find((r) => r.name === name)!;
    (resource as { operations: readonly OperationMetadata[] }).operations = [...resource.operations, ...operations];
  }

  assertDistinctRoutes(resources);

  const byName = new Map(resources.map((r) => [r.name, r]));
  const byPath = new Map(resources.map((r) => [r.collectionPath, r]));
  const registry: MetadataRegistry = {
    prefix,
    pagination,
    resources,
    shapes: shapes.all(),
    resource(name) {
      const found = byName.get(name);
      if (!found) throw new DeclarationError(`Unknown resource "${name}".${formatDidYouMean(name, byName.keys())}`);
      return found;
    },
    resourceByPath: (path) => byPath.get(path),
  };
  return deepFreeze(registry);
}

/**
 * Join tables must not be a resource's table, and relations that store something (a cascading to-one, a many-to-many)
 * must not point at a resource without a table (served by its own provider and processor).
 */
function assertJoinTables(resources: readonly ResourceMetadata[]): void {
  const tables = new Map(resources.map((r) => [r.table, r.name]));
  const tableless = new Set(resources.filter((r) => !r.stored).map((r) => r.name));
  for (const resource of resources) {
    for (const field of resource.fields) {
      const where = `Resource "${resource.name}", field "${field.name}"`;
      if (field.kind === 'toMany' && field.joinTable && field.mappedBy === undefined) {
        const clash = tables.get(field.joinTable.table);
        if (clash)
          throw new DeclarationError(
            `${where}: the join table "${field.joinTable.table}" is the table of resource "${clash}"; give "joinTable" another name.`,
          );
      }
      const stores =
        (field.kind === 'toOne' && field.cascadePersist) || (field.kind === 'toMany' && field.joinTable !== undefined);
      if (stores && tableless.has(field.target)) {
        throw new DeclarationError(
          `${where}: "${field.target}" is served by its own provider and processor (it has no table), so this relation cannot ${field.kind === 'toOne' ? 'create its items (cascadePersist)' : 'be a many-to-many'}.`,
        );
      }
    }
  }
}

/** `types`, checked: a non-empty list of IRIs or names; the resource's name when none is declared. */
function resolveTypes(declaration: ResourceDeclaration): string[] {
  const { types } = declaration;
  if (types === undefined) return [declaration.name];
  if (!Array.isArray(types) || types.length === 0 || types.some((type) => typeof type !== 'string' || type === ''))
    throw new DeclarationError(`Resource "${declaration.name}": "types" must be a non-empty list of type IRIs.`);
  return [...types];
}

/** `requireIfMatch`, checked: a boolean, and a GET of the item to read the ETag from when writes need it. */
function resolveRequireIfMatch(declaration: ResourceDeclaration, operations: readonly OperationMetadata[]): boolean {
  const required = declaration.requireIfMatch ?? false;
  const where = `Resource "${declaration.name}"`;
  if (typeof required !== 'boolean') throw new DeclarationError(`${where}: "requireIfMatch" must be true or false.`);
  const writes = operations.some((o) => o.kind === 'put' || o.kind === 'patch' || o.kind === 'delete');
  if (required && writes && !operations.some((o) => o.kind === 'get' && o.customName === null)) {
    throw new DeclarationError(
      `${where}: "requireIfMatch" needs the "get" operation, where clients read the ETag to send in If-Match.`,
    );
  }
  return required;
}

/**
 * Two operations on one method and path would hide one another (variables count as the same segment: Fastify could
 * not tell `/books/{id}` from `/books/{slug}`); a custom path must not be one the framework serves itself either.
 */
function assertDistinctRoutes(resources: readonly ResourceMetadata[]): void {
  const routes = new Map<string, string>();
  const describe = (resource: ResourceMetadata, operation: OperationMetadata) =>
    `resource "${resource.name}", operation "${operation.customName ?? operation.kind}" (${operation.method} ${operation.uriTemplate})`;
  for (const resource of resources) {
    for (const operation of resource.operations) {
      const key = `${operation.method} ${operation.uriTemplate.replace(/\{\w+\}/g, '{}')}`;
      const clash = routes.get(key);
      if (clash)
        throw new DeclarationError(
          `Resource "${resource.name}", operation "${operation.customName ?? operation.kind}": its route ${operation.method} ${operation.uriTemplate} is already the route of ${clash}.`,
        );
      routes.set(key, describe(resource, operation));
    }
  }
}

/** Two filters reading the same query parameter would fight over it. */
function assertDistinctParameters(resource: ResourceMetadata): void {
  const seen = new Set<string>();
  for (const filter of resource.filters) {
    for (const { variable } of filter.describe(resource)) {
      if (seen.has(variable))
        throw new DeclarationError(
          `Resource "${resource.name}": query parameter "${variable}" is declared by two filters.`,
        );
      seen.add(variable);
    }
  }
}

/** User objects inside metadata that keep their own state: referenced, never frozen. */
const USER_OBJECTS = new Set<PropertyKey>(['provider', 'processor', 'collectionFilter', 'computed']);
/** Lists of user objects: the list is frozen, its members are not. */
const USER_OBJECT_LISTS = new Set<PropertyKey>(['filters', 'constraints', 'beforeWrite', 'afterWrite', 'afterCommit']);

/** Freezes plain data recursively; user objects (providers, processors, custom filters) are left as they are. */
function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return value;
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== Array.prototype && proto !== null) return value;
  Object.freeze(value);
  for (const key of Reflect.ownKeys(value)) {
    const member = (value as Record<PropertyKey, unknown>)[key];
    if (USER_OBJECT_LISTS.has(key)) Object.freeze(member);
    else if (!USER_OBJECTS.has(key)) deepFreeze(member);
  }
  return value;
}
