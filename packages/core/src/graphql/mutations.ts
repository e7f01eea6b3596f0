/**
 * The mutation fields: `createBook` / `updateBook` / `deleteBook` taking `input` (payload `{ book, clientMutationId
 * }`), and custom writes: `<name><Resource>` taking `input: <name><Resource>Input!` (the template's variables,
 * `clientMutationId`, and the input shape's fields or the resource's writable ones for its write mode, or nothing more
 * without body), answering `<name><Resource>Payload` with the resource (null without output) or the output shape's
 * values. Each runs the pipeline once; the request's loaders are cleared after the write.
 */
import {
  type GraphQLFieldConfigMap,
  GraphQLID,
  type GraphQLInputFieldConfigMap,
  GraphQLInputObjectType,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLString,
} from 'graphql';
import { ApiError } from '../errors.js';
import { findBuiltinOperation } from '../metadata/builtin-operation.js';
import { toLowerFirst } from '../metadata/naming.js';
import type { OperationMetadata, ResourceMetadata } from '../metadata/types.js';
import type { OperationContext } from '../pipeline/operation-context.js';
import type { WriteMode } from '../schema/input-schema.js';
import { listGraphQLInputFields } from './input-types.js';
import { buildMutationExtensions } from './cost.js';
import { type Execution, execute, type GraphQLRequestContext, readStatus, toGraphQLError } from './execute.js';
import { describeLocation } from './name-claims.js';
import { toCustomMutationName, toItemQueryName, toMutationName } from './naming.js';
import { toFixedGroups } from '../metadata/groups.js';
import type { SchemaParts } from './schema-parts.js';
import { toItemId, mergeArgs, buildUriArguments } from './uri-arguments.js';

type Mutations = GraphQLFieldConfigMap<unknown, GraphQLRequestContext>;
type Values = Record<string, unknown>;

const writeGroupsOf = (operation: OperationMetadata): ReadonlySet<string> | null =>
  toFixedGroups(operation.denormalizationGroups);

/**
 * A mutation's write. An IRI that names no item of the resource (id null) goes through the pipeline all the same, so
 * an anonymous caller of a protected operation gets its 401 first; its 404 then names the IRI. The request's loaders
 * and joined items are dropped after it, so the fields resolved after it read the rows as they are now (mutations run
 * one after the other: no read of the request is under way then).
 */
async function writeItem(
  context: GraphQLRequestContext,
  execution: Execution,
  iri: unknown,
): Promise<OperationContext> {
  try {
    return await execute(context, execution);
  } catch (error) {
    if (execution.id === null && readStatus(error) === 404)
      throw toGraphQLError(new ApiError('ITEM_NOT_FOUND', `Item "${String(iri)}" not found.`), context.log);
    throw error;
  } finally {
    context.scope.afterWrite();
  }
}

/** The create, update and delete mutations of a resource, into `mutations`. */
export function addResourceMutations(parts: SchemaParts, resource: ResourceMetadata, mutations: Mutations): void {
  const type = parts.types.typeOf(resource);
  const key = toItemQueryName(resource.name);
  const payload = (verb: string) =>
    new GraphQLObjectType({
      name: `${verb}${resource.name}Payload`,
      fields: { [key]: { type }, clientMutationId: { type: GraphQLString } },
    });
  const input = (verb: string, mode: WriteMode, operation: OperationMetadata, withId: boolean) => {
    const groups = writeGroupsOf(operation);
    const fields: GraphQLInputFieldConfigMap = {};
    if (withId) fields.id = { type: new GraphQLNonNull(GraphQLID) };
    for (const field of listGraphQLInputFields(resource, mode, groups))
      fields[field.name] = { type: parts.inputs.inputType(field, groups, verb), description: field.description };
    fields.clientMutationId = { type: GraphQLString };
    return new GraphQLInputObjectType({ name: `${verb}${resource.name}Input`, fields });
  };
  const idOf = (values: Values) => toItemId(parts.registry, resource, values.id as string);
  const bodyOf = ({ id: _id, clientMutationId: _client, ...rest }: Values) => parts.inputs.toBody(rest, resource);
  const answer = (data: unknown, values: Values) => ({
    [key]: data,
    clientMutationId: values.clientMutationId ?? null,
  });

  const post = findBuiltinOperation(resource, 'post');
  // A required file cannot come through GraphQL (no uploads, docs/uploads.md): no create mutation that always fails.
  const needsUpload = resource.fields.some(
    (field) => field.kind === 'scalar' && field.type === 'file' && field.writable && !field.nullable,
  );
  if (post && !needsUpload) {
    mutations[toMutationName('create', resource.name)] = {
      type: payload('create'),
      args: { input: { type: new GraphQLNonNull(input('create', 'create', post, false)) } },
      extensions: buildMutationExtensions(parts.registry, resource, 'create', writeGroupsOf(post)),
      resolve: async (_source, { input: values }: { input: Values }, context) =>
        answer((await writeItem(context, { operation: post, body: bodyOf(values) }, undefined)).data, values),
    };
  }
  const update = findBuiltinOperation(resource, 'patch') ?? findBuiltinOperation(resource, 'put');
  if (update) {
    const mode = update.kind === 'patch' ? 'update' : 'replace';
    mutations[toMutationName('update', resource.name)] = {
      type: payload('update'),
      args: { input: { type: new GraphQLNonNull(input('update', mode, update, true)) } },
      extensions: buildMutationExtensions(parts.registry, resource, mode, writeGroupsOf(update)),
      resolve: async (_source, { input: values }: { input: Values }, context) =>
        answer(
          (await writeItem(context, { operation: update, id: idOf(values), body: bodyOf(values) }, values.id)).data,
          values,
        ),
    };
  }
  const remove = findBuiltinOperation(resource, 'delete');
  if (remove) {
    const deleteInput = new GraphQLInputObjectType({
      name: `delete${resource.name}Input`,
      fields: { id: { type: new GraphQLNonNull(GraphQLID) }, clientMutationId: { type: GraphQLString } },
    });
    mutations[toMutationName('delete', resource.name)] = {
      type: payload('delete'),
      args: { input: { type: new GraphQLNonNull(deleteInput) } },
      resolve: async (_source, { input: values }: { input: Values }, context) =>
        answer({ id: (await writeItem(context, { operation: remove, id: idOf(values) }, values.id)).id }, values),
    };
  }
}

/** A custom write: the mutation `<name><Resource>`, into `mutations`. */
export function addCustomMutation(
  parts: SchemaParts,
  resource: ResourceMetadata,
  operation: OperationMetadata,
  mutations: Mutations,
): void {
  const name = parts.names.claim(
    toCustomMutationName(operation.customName!, resource.name),
    resource,
    operation,
    'mutation',
  );
  const uri = buildUriArguments(parts.registry, resource, operation);
  const groups = writeGroupsOf(operation);
  const source = operation.input ?? resource;
  const verb = `${operation.customName}${resource.name}`;
  const mode: WriteMode = operation.input ? 'create' : operation.writeMode!;
  const fields: GraphQLInputFieldConfigMap = {};
  if (operation.stages.deserialize) {
    for (const field of listGraphQLInputFields(source, mode, groups))
      fields[field.name] = { type: parts.inputs.inputType(field, groups, verb), description: field.description };
  }
  const inputName = `${verb}Input`;
  const payloadName = `${verb}Payload`;
  for (const typeName of [inputName, payloadName])
    parts.names.nameType(typeName, `${describeLocation(resource, operation)} (its GraphQL type "${typeName}")`);
  const mutationInput = new GraphQLInputObjectType({
    name: inputName,
    description: operation.input ? `The input of ${name}: the ${operation.input.name} shape's fields.` : undefined,
    fields: mergeArgs(resource, operation, uri.args as GraphQLInputFieldConfigMap, fields, {
      clientMutationId: { type: GraphQLString },
    }),
  });
  const output = operation.output;
  const key = toLowerFirst(output ? output.name : resource.name);
  const payloadType = new GraphQLObjectType({
    name: payloadName,
    fields: { [key]: { type: parts.types.typeOf(output ?? resource) }, clientMutationId: { type: GraphQLString } },
  });
  const remembers = parts.model.remembers(resource, operation);
  /** The input's fields but the URI variables and `clientMutationId`, as the JSON body the pipeline reads. */
  const bodyOf = (values: Values): Values | undefined => {
    if (!operation.stages.deserialize) return undefined;
    const body: Values = {};
    for (const [field, value] of Object.entries(values))
      if (field !== 'clientMutationId' && !uri.names.includes(field)) body[field] = value;
    return parts.inputs.toBody(body, source);
  };
  mutations[name] = {
    type: payloadType,
    description: operation.description,
    args: { input: { type: new GraphQLNonNull(mutationInput) } },
    extensions: operation.stages.deserialize
      ? buildMutationExtensions(parts.registry, source, mode, groups)
      : undefined,
    resolve: async (_source, { input: values }: { input: Values }, context) => {
      const body = bodyOf(values);
      const result = await writeItem(
        context,
        { operation, ...uri.target(values), ...(body === undefined ? {} : { body }) },
        values.id,
      );
      const data = operation.stages.serialize ? result.data : null;
      return {
        [key]: remembers ? context.scope.remember(data, operation) : data,
        clientMutationId: values.clientMutationId ?? null,
      };
    },
  };
}
