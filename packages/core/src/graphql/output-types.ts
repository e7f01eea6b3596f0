/**
 * The output types, built from the metadata: a type per resource (`id` is the IRI, `_id` the database id; the read
 * groups of the operations sending its items decide its fields), a type per output shape (no `id`), and their cursor
 * and page connections. Fields resolve by the rules of `visibility.ts`; relations resolve through the request's batch
 * loaders (`request-scope.ts`), never one query per item.
 */
import {
  GraphQLBoolean,
  type GraphQLFieldConfig,
  type GraphQLFieldConfigMap,
  GraphQLFloat,
  GraphQLID,
  type GraphQLInputType,
  GraphQLInt,
  GraphQLInterfaceType,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  type GraphQLOutputType,
  GraphQLScalarType,
  GraphQLString,
} from 'graphql';
import { DeclarationError } from '../errors.js';
import { findBuiltinOperation } from '../metadata/builtin-operation.js';
import type {
  FieldMetadata,
  ItemId,
  ResourceMetadata,
  ScalarFieldMetadata,
  ToManyFieldMetadata,
  ToOneFieldMetadata,
} from '../metadata/types.js';
import { computeSpan } from '../query/cursor-window.js';
import { formatDateTime } from '../serializer/datetime.js';
import { buildIri } from '../metadata/iri.js';
import type { Entity } from '../metadata/types.js';
import { buildConnectionExtensions } from './cost.js';
import { createCursorConnectionType, createPageConnectionType, pagingArgs, toConnection } from './connections.js';
import { type GraphQLRequestContext, toGraphQLError } from './execute.js';
import type { ReadModel } from './read-model.js';
import { isInGroups } from '../metadata/groups.js';
import { createFieldCheck, filterVisibleRelated } from './visibility.js';

/** JSON values, as API Platform's GraphQL calls them. */
const Iterable = new GraphQLScalarType({
  name: 'Iterable',
  description: 'Any JSON value.',
  serialize: (v) => v,
  parseValue: (v) => v,
});

export function toGraphQLType(field: ScalarFieldMetadata): GraphQLOutputType & GraphQLInputType {
  switch (field.type) {
    case 'integer':
      return GraphQLInt;
    case 'float':
      return GraphQLFloat;
    case 'boolean':
      return GraphQLBoolean;
    case 'json':
      return Iterable;
    case 'string[]':
      return new GraphQLList(GraphQLString);
    default:
      return GraphQLString;
  }
}

const scalarValue = (field: ScalarFieldMetadata, value: unknown) =>
  field.type === 'datetime' && value instanceof Date ? formatDateTime(value) : (value ?? null);

type Field = GraphQLFieldConfig<Entity, GraphQLRequestContext>;

export interface OutputTypes {
  readonly Node: GraphQLInterfaceType;
  /** The type of a resource's items or of an output shape's values. */
  typeOf(resource: ResourceMetadata): GraphQLObjectType;
  connectionOf(resource: ResourceMetadata): GraphQLObjectType;
  pageConnectionOf(resource: ResourceMetadata): GraphQLObjectType;
  /** Every resource type built, for the schema's `types`. */
  resourceTypes(): GraphQLObjectType[];
}

/** Builds each type once, on first use (types refer to each other through relations). */
class OutputTypeBuilder implements OutputTypes {
  readonly Node = new GraphQLInterfaceType({
    name: 'Node',
    description: 'A node, according to the Relay specification.',
    fields: { id: { type: new GraphQLNonNull(GraphQLID), description: 'The id of this node.' } },
  });
  private readonly objectTypes = new Map<string, GraphQLObjectType>();
  private readonly shapeTypes = new Map<string, GraphQLObjectType>();
  private readonly cursorConnections = new Map<string, GraphQLObjectType>();
  private readonly pageConnections = new Map<string, GraphQLObjectType>();

  constructor(private readonly model: ReadModel) {}

  typeOf(resource: ResourceMetadata): GraphQLObjectType {
    return resource.shape ? this.shapeTypeOf(resource) : this.objectTypeOf(resource);
  }

  connectionOf(resource: ResourceMetadata): GraphQLObjectType {
    return this.cached(this.cursorConnections, resource, () =>
      createCursorConnectionType(resource.name, this.typeOf(resource)),
    );
  }

  pageConnectionOf(resource: ResourceMetadata): GraphQLObjectType {
    return this.cached(this.pageConnections, resource, () =>
      createPageConnectionType(resource.name, this.typeOf(resource)),
    );
  }

  resourceTypes(): GraphQLObjectType[] {
    return [...this.objectTypes.values()];
  }

  private cached(
    cache: Map<string, GraphQLObjectType>,
    resource: ResourceMetadata,
    build: () => GraphQLObjectType,
  ): GraphQLObjectType {
    let type = cache.get(resource.name);
    if (!type) cache.set(resource.name, (type = build()));
    return type;
  }

  private objectTypeOf(resource: ResourceMetadata): GraphQLObjectType {
    return this.cached(
      this.objectTypes,
      resource,
      () =>
        new GraphQLObjectType<Entity, GraphQLRequestContext>({
          name: resource.name,
          description: resource.description,
          interfaces: [this.Node],
          fields: () => ({
            id: { type: new GraphQLNonNull(GraphQLID), resolve: (entity) => buildIri(resource, entity.id!) },
            // The database id: an Int, or a String for UUIDs.
            _id: {
              type: new GraphQLNonNull(resource.identifier.type === 'uuid' ? GraphQLString : GraphQLInt),
              resolve: (entity) => entity.id,
            },
            ...this.fieldsOf(resource),
          }),
        }),
    );
  }

  /** An output shape's object type, named after it. No `id`: a shape has no IRI. */
  private shapeTypeOf(shape: ResourceMetadata): GraphQLObjectType {
    return this.cached(
      this.shapeTypes,
      shape,
      () =>
        new GraphQLObjectType<Entity, GraphQLRequestContext>({
          name: shape.name,
          description: shape.description,
          fields: () => {
            const fields = this.fieldsOf(shape);
            // GraphQL has no empty object type: a shape whose fields no read group reaches would send nothing anyway.
            if (Object.keys(fields).length === 0) throw this.emptyShape(shape);
            return fields;
          },
        }),
    );
  }

  private emptyShape(shape: ResourceMetadata): DeclarationError {
    const sender = this.model.registry.resources.flatMap((resource) =>
      resource.operations.filter((operation) => operation.output === shape),
    )[0]!;
    const groups =
      sender.normalizationGroups && typeof sender.normalizationGroups !== 'function'
        ? JSON.stringify(sender.normalizationGroups)
        : 'the operation';
    return new DeclarationError(
      `Shape "${shape.name}" (the output of Resource "${sender.resource}", operation "${sender.customName ?? sender.kind}"): none of its fields is readable in the operation's read groups, and a GraphQL type needs one; put its fields in the groups of ${groups}.`,
    );
  }

  /** The readable fields the type's groups reach. */
  private fieldsOf(resource: ResourceMetadata): GraphQLFieldConfigMap<Entity, GraphQLRequestContext> {
    const fields: GraphQLFieldConfigMap<Entity, GraphQLRequestContext> = {};
    const groups = this.model.typeGroups(resource);
    for (const field of resource.fields)
      if (field.readable && isInGroups(field, groups)) fields[field.name] = this.fieldConfig(resource, field);
    return fields;
  }

  private fieldConfig(owner: ResourceMetadata, field: FieldMetadata): Field {
    if (field.kind === 'scalar') return scalarField(this.model, owner, field);
    return field.kind === 'toOne' ? this.toOneField(owner, field) : this.toManyField(owner, field);
  }

  private toOneField(owner: ResourceMetadata, field: ToOneFieldMetadata): Field {
    const { model } = this;
    const shows = createFieldCheck(model, owner, field);
    const target = model.registry.resource(field.target);
    return {
      type: this.objectTypeOf(target),
      description: field.description,
      resolve: (entity, _args, { scope }) => {
        const id = entity[field.name];
        return shows(scope, entity) && (typeof id === 'number' || typeof id === 'string')
          ? filterVisibleRelated(model, scope, target, scope.item(target, id))
          : null;
      },
    };
  }

  private toManyField(owner: ResourceMetadata, field: ToManyFieldMetadata): Field {
    const { model } = this;
    const shows = createFieldCheck(model, owner, field);
    const target = model.registry.resource(field.target);
    // Pages as the target's collection does (as in API Platform): an author with a million books gives a page of them,
    // not the million; `first` asks for more, up to the same maximum. A target without a collection GET pages with the
    // global settings; one whose collection is not paginated gives every item.
    const pagination = findBuiltinOperation(target, 'getCollection')?.pagination ?? model.registry.pagination;
    const size = pagination.enabled
      ? { fallback: pagination.itemsPerPage, maximum: pagination.maximumItemsPerPage }
      : { fallback: Number.MAX_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER };
    return {
      type: this.connectionOf(target),
      description: field.description,
      args: pagingArgs,
      // The cost of a query counts the items of this page (cost.ts).
      extensions: buildConnectionExtensions(pagination, 'relation'),
      resolve: async (entity, args, context) => {
        const { scope } = context;
        if (!shows(scope, entity)) return null;
        const ids =
          (entity[field.name] as ItemId[] | undefined) ?? (await scope.linksOf(owner, field.name, entity.id!));
        let span: { offset: number; limit: number };
        try {
          span = computeSpan(args, size.fallback, size.maximum, ids.length);
        } catch (error) {
          throw toGraphQLError(error, context.log);
        }
        const items = await scope.itemsOf(target, ids.slice(span.offset, span.offset + span.limit));
        const shown = await Promise.all(items.map((item) => filterVisibleRelated(model, scope, target, item)));
        return toConnection(shown, span.offset, ids.length);
      },
    };
  }
}

/** A scalar field: its value (a date-time as text, a computed one worked out once per item and request). */
function scalarField(model: ReadModel, owner: ResourceMetadata, field: ScalarFieldMetadata): Field {
  const shows = createFieldCheck(model, owner, field);
  return {
    type: toGraphQLType(field),
    description: field.description,
    resolve: (entity, _args, { scope }) => {
      if (!shows(scope, entity)) return null;
      if (!field.computed) return scalarValue(field, entity[field.name]);
      // Awaited when the function returns a promise.
      const computed = scope.computed(entity, field);
      return computed instanceof Promise
        ? computed.then((value) => scalarValue(field, value))
        : scalarValue(field, computed);
    },
  };
}

export const createOutputTypes = (model: ReadModel): OutputTypes => new OutputTypeBuilder(model);
