/**
 * GraphQL subscriptions, with API Platform's names: `update<Type>Subscribe(input: {id, clientSubscriptionId})` for
 * each resource whose writes are published (`mercure`) and that has an item GET. Served by mercurius over WebSocket
 * (`graphql-transport-ws`, the `graphql-ws` library's protocol, and the older `graphql-ws`), fed by the same committed
 * writes as the Mercure hub. Each update is read again through the item GET's pipeline as the subscriber: the same
 * access rules and field visibility as a query of that item, checked again for every update; a deleted item is null.
 */
import {
  type GraphQLFieldConfig,
  type GraphQLFieldConfigMap,
  GraphQLID,
  GraphQLInputObjectType,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLString,
} from 'graphql';
import { findBuiltinOperation } from '../metadata/builtin-operation.js';
import { toLowerFirst } from '../metadata/naming.js';
import type { ItemId, ResourceMetadata } from '../metadata/types.js';
import type { WrittenItem } from '../pipeline/publish-writes.js';
import { ApiError } from '../errors.js';
import { type GraphQLRequestContext, toGraphQLError } from './execute.js';
import { readItemOrNull } from './reads.js';
import { GraphQLRequestScope } from './request-scope.js';
import type { SchemaParts } from './schema-parts.js';
import { toItemId } from './uri-arguments.js';

/**
 * The subscriptions' source of events: mercurius's pubsub (`subscribe` gives an async iterator of a topic's payloads).
 */
interface PubSub {
  subscribe(topic: string): Promise<AsyncIterable<unknown>> | AsyncIterable<unknown>;
}

/** What a resolver of a subscription is given: the request's context (the connection's), and mercurius's pubsub. */
type SubscriptionContext = GraphQLRequestContext & { pubsub: PubSub };

/** The pubsub topic of one item's updates. */
export const toSubscriptionTopic = (resource: string, id: unknown): string => `update:${resource}:${String(id)}`;

/** Whether some write of the resource is published: then it has a subscription. */
export const hasPublishedWrites = (resource: ResourceMetadata): boolean =>
  resource.mercure !== null || resource.operations.some((operation) => operation.mercure !== null);

export function addResourceSubscriptions(
  parts: SchemaParts,
  resource: ResourceMetadata,
  subscriptions: GraphQLFieldConfigMap<unknown, GraphQLRequestContext>,
): void {
  const get = findBuiltinOperation(resource, 'get');
  // An item GET with an output shape answers no item of the resource: no subscription to it.
  if (!get || get.output || !hasPublishedWrites(resource)) return;
  const { name } = resource;
  const field = toLowerFirst(name);
  const input = new GraphQLInputObjectType({
    name: `update${name}SubscriptionInput`,
    fields: { id: { type: new GraphQLNonNull(GraphQLID) }, clientSubscriptionId: { type: GraphQLString } },
  });
  const payload = new GraphQLObjectType({
    name: `update${name}SubscriptionPayload`,
    fields: { [field]: { type: parts.types.typeOf(resource) }, clientSubscriptionId: { type: GraphQLString } },
  });
  type Args = { input: { id: string; clientSubscriptionId?: string | null } };
  /** A read of the item as the subscriber, with loaders of its own: nothing read for an earlier update is reused. */
  const read = (context: SubscriptionContext, id: ItemId | null) => {
    // The connection's context lives as long as the subscription; its scope, one update.
    (context as { scope: GraphQLRequestScope }).scope = new GraphQLRequestScope(context.runtime, context.caller);
    return readItemOrNull(context, { operation: get, id });
  };
  const subscription: GraphQLFieldConfig<unknown, GraphQLRequestContext, Args> = {
    type: payload,
    args: { input: { type: new GraphQLNonNull(input) } },
    subscribe: async (_source, args, context) => {
      const subscriber = context as SubscriptionContext;
      const id = toItemId(parts.registry, resource, args.input.id);
      // Only to an item the subscriber may read now (its rule says so, and it exists).
      if ((await read(subscriber, id)) === null)
        throw toGraphQLError(new ApiError('ITEM_NOT_FOUND', `Item "${args.input.id}" not found.`), context.log);
      return subscriber.pubsub.subscribe(toSubscriptionTopic(name, id));
    },
    resolve: async (event, args, context) => {
      const written = event as Pick<WrittenItem, 'id' | 'deleted'>;
      const item = written.deleted ? null : await read(context as SubscriptionContext, written.id as ItemId);
      return { [field]: item, clientSubscriptionId: args.input.clientSubscriptionId ?? null };
    },
  };
  subscriptions[`update${name}Subscribe`] = subscription as GraphQLFieldConfig<unknown, GraphQLRequestContext>;
}
