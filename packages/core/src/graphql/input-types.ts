/**
 * The input side: a field's GraphQL input type (relations as IRI strings, embedded writable objects as
 * `…NestedInput` types), and a mutation's input turned back into the JSON body REST's deserializer reads.
 */
import {
  GraphQLID,
  type GraphQLInputFieldConfigMap,
  GraphQLInputObjectType,
  type GraphQLInputType,
  GraphQLList,
  GraphQLString,
} from 'graphql';
import type { FieldMetadata, MetadataRegistry, ResourceMetadata } from '../metadata/types.js';
import { acceptsNested, listWritableFields, type WriteMode } from '../schema/input-schema.js';
import { toGraphQLType } from './output-types.js';

/**
 * The fields a mutation's input takes: the writable ones but files. GraphQL takes no uploads (docs/uploads.md): a file
 * is sent to its REST operation, and a mutation names the item by its IRI.
 */
export function listGraphQLInputFields(
  resource: ResourceMetadata,
  mode: WriteMode,
  groups: ReadonlySet<string> | null,
): FieldMetadata[] {
  return listWritableFields(resource, mode, groups).filter(
    (field) => !(field.kind === 'scalar' && field.type === 'file'),
  );
}

export interface InputTypes {
  inputType(field: FieldMetadata, groups: ReadonlySet<string> | null, verb: string): GraphQLInputType;
  /**
   * GraphQL input → the JSON body the pipeline reads: the `id` of a nested object (a to-one relation's
   * `…NestedInput`) becomes its `@id`. Only those objects are renamed; a JSON field's value is passed as it is.
   */
  toBody(input: Record<string, unknown>, resource: ResourceMetadata): Record<string, unknown>;
}

export function createInputTypes(registry: MetadataRegistry): InputTypes {
  const nestedInputs = new Map<string, GraphQLInputObjectType>();

  function inputType(field: FieldMetadata, groups: ReadonlySet<string> | null, verb: string): GraphQLInputType {
    if (field.kind === 'scalar') return toGraphQLType(field);
    if (field.kind === 'toMany') return new GraphQLList(GraphQLString);
    if (!acceptsNested(field, groups, registry)) return GraphQLString;
    const target = registry.resource(field.target);
    const name = `${verb}${target.name}NestedInput`;
    let nested = nestedInputs.get(name);
    if (!nested) {
      nested = new GraphQLInputObjectType({
        name,
        fields: () => {
          const fields: GraphQLInputFieldConfigMap = {
            id: {
              type: GraphQLID,
              description: 'The IRI of an existing item (to update it), or nothing to create one.',
            },
          };
          for (const f of listGraphQLInputFields(target, 'create', groups))
            if (f.kind !== 'toOne' || !acceptsNested(f, groups, registry))
              fields[f.name] = { type: inputType(f, groups, verb) };
          return fields;
        },
      });
      nestedInputs.set(name, nested);
    }
    return nested;
  }

  function toBody(input: Record<string, unknown>, resource: ResourceMetadata): Record<string, unknown> {
    const body: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(input)) {
      const field = resource.fieldsByName.get(key);
      if (field?.kind !== 'toOne' || value === null || typeof value !== 'object' || Array.isArray(value)) {
        body[key] = value;
        continue;
      }
      const { id, ...rest } = value as Record<string, unknown>;
      const nested = toBody(rest, registry.resource(field.target));
      body[key] = id === undefined ? nested : { '@id': id, ...nested };
    }
    return body;
  }

  return { inputType, toBody };
}
