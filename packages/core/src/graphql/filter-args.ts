/**
 * The declared filters as GraphQL arguments, and back. Each filter parameter (`Filter.describe()`) becomes an
 * argument in API Platform's GraphQL shape — `title`, `title_list` (for `title[]`), `author_name` (for `author.name`),
 * and bracketed parameters as lists of input objects: `price: [{ gte: "10" }]`, `order: [{ title: "DESC" }]`,
 * `exists: [{ body: true }]`. Arguments are turned back into the query string the filters already parse, so REST and
 * GraphQL share every filter.
 */
import {
  GraphQLBoolean,
  type GraphQLFieldConfigArgumentMap,
  GraphQLFloat,
  GraphQLInputObjectType,
  type GraphQLInputType,
  GraphQLInt,
  GraphQLList,
  GraphQLString,
} from 'graphql';
import type { ResourceMetadata } from '../metadata/types.js';
import type { FilterParameter, QueryParameters } from '../metadata/types.js';
import { describeFilterParameters } from '../serializer/hydra/search.js';
import { toArgumentName } from './naming.js';

const scalarOf = (parameter: FilterParameter): GraphQLInputType => {
  switch (parameter.schema.type) {
    case 'integer':
      return GraphQLInt;
    case 'number':
      return GraphQLFloat;
    case 'boolean':
      return GraphQLBoolean;
    default:
      return GraphQLString;
  }
};

type Mapping =
  | { readonly kind: 'value'; readonly argument: string; readonly variable: string }
  | { readonly kind: 'list'; readonly argument: string; readonly variable: string }
  | {
      readonly kind: 'bracket';
      readonly argument: string;
      readonly prefix: string;
      readonly keys: ReadonlyMap<string, string>;
    };

export interface FilterArguments {
  readonly args: GraphQLFieldConfigArgumentMap;
  /** GraphQL argument values → the query string the filters parse. */
  toQuery(args: Record<string, unknown>): QueryParameters;
}

export function buildFilterArguments(resource: ResourceMetadata): FilterArguments {
  const args: GraphQLFieldConfigArgumentMap = {};
  const mappings: Mapping[] = [];
  const brackets = new Map<string, { fields: Record<string, { type: GraphQLInputType }>; keys: Map<string, string> }>();
  for (const parameter of describeFilterParameters(resource)) {
    const bracket = /^([^[\]]+)\[([^[\]]+)\]$/.exec(parameter.variable);
    if (bracket) {
      const [, prefix, key] = bracket as unknown as [string, string, string];
      const group = brackets.get(prefix!) ?? { fields: {}, keys: new Map<string, string>() };
      const field = toArgumentName(key!);
      // As API Platform types them: strings (`{ gte: "10" }`, `{ title: "DESC" }`), booleans for `exists`.
      group.fields[field] = { type: parameter.schema.type === 'boolean' ? GraphQLBoolean : GraphQLString };
      group.keys.set(field, key!);
      brackets.set(prefix!, group);
      continue;
    }
    if (parameter.variable.endsWith('[]')) {
      const variable = parameter.variable.slice(0, -2);
      const argument = `${toArgumentName(variable)}_list`;
      args[argument] = { type: new GraphQLList(scalarOf(parameter)), description: parameter.description };
      mappings.push({ kind: 'list', argument, variable: parameter.variable });
      continue;
    }
    const argument = toArgumentName(parameter.variable);
    args[argument] = { type: scalarOf(parameter), description: parameter.description };
    mappings.push({ kind: 'value', argument, variable: parameter.variable });
  }
  for (const [prefix, group] of brackets) {
    const argument = toArgumentName(prefix);
    const input = new GraphQLInputObjectType({ name: `${resource.name}Filter_${argument}`, fields: group.fields });
    args[argument] = { type: new GraphQLList(input) };
    mappings.push({ kind: 'bracket', argument, prefix, keys: group.keys });
  }

  return {
    args,
    toQuery(values) {
      const query: Record<string, string | string[]> = {};
      for (const mapping of mappings) {
        const value = values[mapping.argument];
        if (value === undefined || value === null) continue;
        if (mapping.kind === 'value') query[mapping.variable] = String(value);
        else if (mapping.kind === 'list') query[mapping.variable] = (value as unknown[]).map(String);
        else {
          for (const entry of value as Record<string, unknown>[]) {
            for (const [field, item] of Object.entries(entry ?? {})) {
              if (item === undefined || item === null) continue;
              query[`${mapping.prefix}[${mapping.keys.get(field)}]`] = String(item);
            }
          }
        }
      }
      return query;
    },
  };
}
