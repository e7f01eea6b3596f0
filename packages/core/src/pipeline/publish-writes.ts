/**
 * Real-time updates of writes: once a write committed, the write stage hands it here, and the updates of every item
 * it wrote go to the Mercure hub — the items nested in it first (`cascadePersist`, written before it, when their
 * resource declares `mercure`), then the item itself. Each update's topic is the item's absolute IRI (then the
 * declared topics), its data the item as its GET renders it: that operation's read groups, for an anonymous caller
 * (what a subscriber sees never depends on who wrote; field rules that need a user leave their field out); after a
 * DELETE, `{"@id", "@type"}`.
 *
 * Updates leave in commit order: each write takes its place in line when the write stage hands it over (right after
 * its commit); its items are rendered meanwhile, and sent on the update bus once every write before it was; the bus
 * delivers them to the hub of every instance (this one's included). A failure to render or publish is logged; the
 * write, committed, stays answered as such.
 */
import { randomUUID } from 'node:crypto';
import type { MercureUpdate, Hub } from '../mercure/hub.js';
import type { BusMessage, UpdateBus } from '../mercure/update-bus.js';
import { buildIri } from '../metadata/iri.js';
import {
  type Entity,
  type ItemId,
  type MercureMetadata,
  type MetadataRegistry,
  NestedWrite,
  type OperationMetadata,
  type ResourceMetadata,
  type StateLogger,
} from '../metadata/types.js';
import { ANONYMOUS } from '../security/access.js';
import { type Normalizer, type ReadMany, toJsonLdType } from '../serializer/normalize.js';
import { resolveActiveGroups } from './groups.js';

/** One committed write, as the write stage tells it. */
export interface CommittedWrite {
  readonly resource: ResourceMetadata;
  readonly operation: OperationMetadata;
  /** The request's origin (`http://host:port`): topics are absolute IRIs. */
  readonly origin: string;
  /** The new state the processors were given (it holds the `NestedWrite`s of the items nested in it). */
  readonly data: Entity;
  /** What the processors returned: the stored item (null after a DELETE; an output shape's values with `output`). */
  readonly stored: Entity | null;
  /** The item as it was read (item operations), null on create. */
  readonly previous: Entity | null;
  readonly logger: StateLogger;
}

/** One item a committed write wrote, as the listeners of the publisher hear of it (GraphQL subscriptions). */
export interface WrittenItem {
  readonly resource: ResourceMetadata;
  readonly id: unknown;
  /** Deleted (soft deletes too): nothing is left to read. */
  readonly deleted: boolean;
}

export interface WritePublisher {
  /** Takes a committed write's place in line, and publishes its updates in turn. Returns at once. */
  publish(write: CommittedWrite): void;
  /** Calls `listener` with each item written, in the order its update goes to the hub. */
  listen(listener: (item: WrittenItem) => void): void;
  /** Resolves once every write handed over so far was published (or failed). */
  drain(): Promise<void>;
}

export interface WritePublisherOptions {
  readonly registry: MetadataRegistry;
  readonly normalizer: Normalizer;
  readonly readMany: ReadMany;
  readonly hub: Hub;
  /** How the updates reach every instance's hub (`mercure/update-bus.ts`): this process alone, PostgreSQL or Redis. */
  readonly bus: UpdateBus;
  /** Where failures of deliveries, which belong to no request, are logged. */
  readonly log: StateLogger;
}

export function createWritePublisher(options: WritePublisherOptions): WritePublisher {
  const { registry, normalizer, readMany, hub, bus, log } = options;
  let tail: Promise<void> = Promise.resolve();
  const listeners: ((item: WrittenItem) => void)[] = [];

  /** An update, and the item it is about. */
  interface Published {
    readonly update: MercureUpdate;
    readonly item: WrittenItem;
  }

  /** The operation whose rendering an update's data is: the item's GET, else the write's own response. */
  const readOperationOf = (resource: ResourceMetadata, fallback: OperationMetadata): OperationMetadata =>
    resource.operations.find((operation) => operation.kind === 'get' && operation.customName === null) ?? fallback;

  async function render(resource: ResourceMetadata, operation: OperationMetadata, item: Entity): Promise<string> {
    const read = readOperationOf(resource, operation);
    const plan = normalizer.plan(
      resource,
      resolveActiveGroups(read.normalizationGroups, { operation: read, caller: ANONYMOUS }),
    );
    // A copy: computed fields are worked out onto the item, which the response is rendered from too.
    const copy = { ...item };
    const loaded = await normalizer.load(plan, [copy]);
    return JSON.stringify(normalizer.document(plan, copy, 'jsonld', loaded, ANONYMOUS));
  }

  /** The item `id` of `resource`, read again with the to-many fields its rendering lists. */
  async function reread(resource: ResourceMetadata, id: unknown): Promise<Entity | null> {
    const toMany = resource.fields.filter((field) => field.kind === 'toMany').map((field) => field.name);
    const [item] = await readMany(resource, [id as ItemId], toMany);
    return item ?? null;
  }

  function topicsOf(mercure: MercureMetadata, origin: string, iri: string, item: Entity): string[] {
    const declared = typeof mercure.topics === 'function' ? mercure.topics(item) : mercure.topics;
    return [`${origin}${iri}`, ...declared.map((topic) => (topic.startsWith('/') ? `${origin}${topic}` : topic))];
  }

  function updateOf(mercure: MercureMetadata, topics: string[], data: string): MercureUpdate {
    return {
      topics,
      data,
      private: mercure.private,
      ...(mercure.type !== undefined ? { type: mercure.type } : {}),
      ...(mercure.retry !== undefined ? { retry: mercure.retry } : {}),
    };
  }

  /**
   * The updates of the items nested in `data` (deepest first, as they were written), when their resource publishes.
   * `stored` holds their ids (a to-one's value once written).
   */
  async function nestedUpdates(
    resource: ResourceMetadata,
    data: Entity,
    stored: Entity,
    write: CommittedWrite,
  ): Promise<Published[]> {
    const updates: Published[] = [];
    for (const field of resource.fields) {
      const value = data[field.name];
      const id = stored[field.name];
      if (!(value instanceof NestedWrite) || id === null || id === undefined) continue;
      const target = registry.resource(value.resource);
      const item = await reread(target, id);
      if (!item) continue;
      updates.push(...(await nestedUpdates(target, value.data, item, write)));
      const mercure = target.mercure;
      if (!mercure) continue;
      const read = readOperationOf(target, write.operation);
      const topics = topicsOf(mercure, write.origin, buildIri(target, item.id!), item);
      updates.push({
        update: updateOf(mercure, topics, await render(target, read, item)),
        item: { resource: target, id: item.id, deleted: false },
      });
    }
    return updates;
  }

  /** Every update of one write, in the order its items were written. */
  async function updatesOf(write: CommittedWrite): Promise<Published[]> {
    const { resource, operation, origin } = write;
    const mercure = operation.mercure!;
    if (operation.kind === 'delete') {
      const gone = write.previous;
      if (!gone || gone.id === undefined) return [];
      const iri = buildIri(resource, gone.id);
      const data = JSON.stringify({ '@id': iri, '@type': toJsonLdType(resource) });
      return [
        {
          update: updateOf(mercure, topicsOf(mercure, origin, iri, gone), data),
          item: { resource, id: gone.id, deleted: true },
        },
      ];
    }
    // An output shape's values are no item: the item is read again, when the operation names one.
    const item = operation.output
      ? write.previous?.id !== undefined
        ? await reread(resource, write.previous.id)
        : null
      : write.stored;
    if (!item || item.id === undefined) return [];
    const nested =
      write.stored && !operation.output ? await nestedUpdates(resource, write.data, write.stored, write) : [];
    const topics = topicsOf(mercure, origin, buildIri(resource, item.id), item);
    return [
      ...nested,
      {
        update: updateOf(mercure, topics, await render(resource, operation, item)),
        item: { resource, id: item.id, deleted: false },
      },
    ];
  }

  // What the bus delivers, from this instance or another: to this instance's hub and listeners.
  bus.deliverTo(({ update, item }) => {
    hub
      .publish(update)
      .catch((error: unknown) =>
        log.error({ err: error, topic: update.topics[0] }, 'An update could not be published to the Mercure hub.'),
      );
    // An instance of another version of the app may know a resource this one does not: its hub has the update anyway.
    const resource = registry.resources.find((candidate) => candidate.name === item.resource);
    if (!resource) return;
    const written: WrittenItem = { resource, id: item.id, deleted: item.deleted };
    for (const listener of listeners) {
      try {
        listener(written);
      } catch (error) {
        log.error({ err: error }, 'A listener of the committed writes failed.');
      }
    }
  });

  return {
    publish(write) {
      // Rendered now, in parallel with the writes after it; published in line.
      const updates = updatesOf(write);
      // Its failure is reported when its turn comes, not as an unhandled rejection before.
      updates.catch(() => undefined);
      tail = tail.then(async () => {
        let ready: Published[];
        try {
          ready = await updates;
        } catch (error) {
          write.logger.error(
            { err: error, operation: write.operation.name },
            'The updates of a committed write could not be rendered; nothing was published for it.',
          );
          return;
        }
        // One after the other: on PostgreSQL each send is a statement, and two in flight could commit the other way.
        for (const { update, item } of ready) {
          const message: BusMessage = {
            update: { ...update, id: `urn:uuid:${randomUUID()}` },
            item: { resource: item.resource.name, id: item.id, deleted: item.deleted },
          };
          try {
            await bus.send(message);
          } catch (error) {
            write.logger.error({ err: error, topic: update.topics[0] }, 'An update could not be sent to the hubs.');
          }
        }
      });
    },
    listen: (listener) => void listeners.push(listener),
    drain: () => tail,
  };
}
