/**
 * Real-time updates of writes: once a write committed, the write stage hands it here, and the updates of every item
 * it wrote go to the Mercure hub — the items nested in it first (`cascadePersist`, written before it, when their
 * resource declares `mercure`), then the item itself. Each update's topic is the item's absolute IRI (then the
 * declared topics), its data the item as its GET renders it: that operation's read groups, for an anonymous caller
 * (what a subscriber sees never depends on who wrote; field rules that need a user leave their field out); after a
 * DELETE, `{"@id", "@type"}`.
 *
 * The items a DELETE takes or changes through the database's cascades (`onDelete`, join rows) are found inside its
 * transaction, before it runs (the write stage looks them up, `prepare` keeps those that publish), and published
 * before it: deleted ones as deletes, the others re-rendered.
 *
 * Updates leave in commit order: each write takes its place in line when the write stage hands it over (right after
 * its commit; on PostgreSQL inside its transaction, `UpdateBus.reserve`); its items are rendered meanwhile, and sent
 * on the update bus once every write before it was; the bus delivers them to the hub of every instance (this one's
 * included). An update the bus carried without its data (too large) is rendered by each instance from the item read
 * again. A failure to render or publish is logged; the write, committed, stays answered as such.
 */
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
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
import type { CascadedItem } from '../state/knex/cascaded-items.js';
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
  /** What `prepare` found inside the write's transaction, when the write ran in one for its updates. */
  readonly prepared: PreparedWrite | undefined;
  /**
   * The purge of the cached responses that showed what it wrote, when HTTP caching is on: its updates keep their place
   * in line but leave once it is done, so that a subscriber that reads the item on an update is not served the older
   * state from a cache. Its failure is the purger's to report.
   */
  readonly purged?: Promise<unknown>;
  readonly logger: StateLogger;
}

/** What a write's updates need from inside its transaction, before it writes. */
export interface PreparedWrite {
  /** Its place in the order of commits (the bus's `reserve`). */
  readonly place: string | undefined;
  /** The items a DELETE takes or changes by cascade, deepest first; those it takes as they were, when read. */
  readonly cascaded: readonly (CascadedItem & { readonly before?: Entity })[];
}

/** One item a committed write wrote, as the listeners of the publisher hear of it (GraphQL subscriptions). */
export interface WrittenItem {
  readonly resource: ResourceMetadata;
  readonly id: unknown;
  /** Deleted (soft deletes too): nothing is left to read. */
  readonly deleted: boolean;
}

export interface WritePublisher {
  /** Whether its writes must run in a transaction (`prepare` then runs there first): to take their place in line. */
  readonly needsTransaction: boolean;
  /**
   * Inside the write's transaction, before the write: its place in the order of commits, and, of the items a DELETE
   * takes or changes by cascade (the write stage looked them up), those whose resource publishes.
   */
  prepare(transaction: Knex.Transaction, cascaded: readonly CascadedItem[]): Promise<PreparedWrite>;
  /** Takes a committed write's place in line, and publishes its updates in turn. Returns at once. */
  publish(write: CommittedWrite): void;
  /**
   * Sends an update of another publisher (the built-in hub's publish endpoint) to the hub of every instance, in line
   * with the writes' updates; resolves with its id once the bus has it.
   */
  relay(update: MercureUpdate): Promise<string>;
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
  /** Reads items by id inside a transaction (the items a cascade is about to take). */
  readInTransaction: (
    transaction: Knex.Transaction,
    resource: ResourceMetadata,
    ids: readonly ItemId[],
  ) => Promise<Entity[]>;
  /** Where failures of deliveries, which belong to no request, are logged. */
  readonly log: StateLogger;
}

export function createWritePublisher(options: WritePublisherOptions): WritePublisher {
  const { registry, normalizer, readMany, hub, bus, log } = options;
  let tail: Promise<void> = Promise.resolve();
  const listeners: ((item: WrittenItem) => void)[] = [];

  /** An update, the item it is about, and the operation whose rendering its data is. */
  interface Published {
    readonly update: MercureUpdate;
    readonly item: WrittenItem;
    readonly rendering: OperationMetadata;
  }

  /** The operation whose rendering an update's data is: the item's GET, else the write's own response. */
  const readOperationOf = (resource: ResourceMetadata, fallback: OperationMetadata): OperationMetadata =>
    resource.operations.find((operation) => operation.kind === 'get' && operation.customName === null) ?? fallback;

  /** `item` as `read` (the item's GET, or the write's own operation) renders it for an anonymous caller. */
  async function render(resource: ResourceMetadata, read: OperationMetadata, item: Entity): Promise<string> {
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

  /** The update of an item written (`read` renders it). */
  async function renderedUpdate(
    resource: ResourceMetadata,
    mercure: MercureMetadata,
    read: OperationMetadata,
    item: Entity,
    origin: string,
  ): Promise<Published> {
    const topics = topicsOf(mercure, origin, buildIri(resource, item.id!), item);
    return {
      update: updateOf(mercure, topics, await render(resource, read, item)),
      item: { resource, id: item.id, deleted: false },
      rendering: read,
    };
  }

  /** The update of an item deleted: `{"@id", "@type"}`. */
  function deletedUpdate(
    resource: ResourceMetadata,
    mercure: MercureMetadata,
    read: OperationMetadata,
    gone: Entity,
    origin: string,
  ): Published {
    const iri = buildIri(resource, gone.id!);
    return {
      update: updateOf(mercure, topicsOf(mercure, origin, iri, gone), deletedData(resource, iri)),
      item: { resource, id: gone.id, deleted: true },
      rendering: read,
    };
  }

  /** The updates of the items a DELETE took or changed by cascade (read before it, for the deleted ones' topics). */
  async function cascadedUpdates(write: CommittedWrite): Promise<Published[]> {
    const updates: Published[] = [];
    for (const cascaded of write.prepared?.cascaded ?? []) {
      const { resource } = cascaded;
      const read = readOperationOf(resource, write.operation);
      if (cascaded.deleted) {
        const gone = cascaded.before ?? { id: cascaded.id };
        updates.push(deletedUpdate(resource, resource.mercure!, read, gone, write.origin));
        continue;
      }
      const item = await reread(resource, cascaded.id);
      if (item) updates.push(await renderedUpdate(resource, resource.mercure!, read, item, write.origin));
    }
    return updates;
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
      updates.push(await renderedUpdate(target, mercure, readOperationOf(target, write.operation), item, write.origin));
    }
    return updates;
  }

  /** Every update of one write, in the order its items were written. */
  async function updatesOf(write: CommittedWrite): Promise<Published[]> {
    const { resource, operation, origin } = write;
    const mercure = operation.mercure!;
    const read = readOperationOf(resource, operation);
    if (operation.kind === 'delete') {
      const gone = write.previous;
      if (!gone || gone.id === undefined) return [];
      return [...(await cascadedUpdates(write)), deletedUpdate(resource, mercure, read, gone, origin)];
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
    return [...nested, await renderedUpdate(resource, mercure, read, item, origin)];
  }

  /**
   * The items a DELETE is about to take by cascade, as they are, when their topics are worked out from them (a
   * function); read in the delete's transaction, before it.
   */
  async function readBefore(
    transaction: Knex.Transaction,
    cascaded: readonly CascadedItem[],
  ): Promise<PreparedWrite['cascaded']> {
    const wanted = cascaded.filter((item) => item.deleted && typeof item.resource.mercure?.topics === 'function');
    const before = new Map<CascadedItem, Entity>();
    for (const resource of new Set(wanted.map((item) => item.resource))) {
      const mine = wanted.filter((item) => item.resource === resource);
      const byId = new Map(
        (
          await options.readInTransaction(
            transaction,
            resource,
            mine.map((item) => item.id),
          )
        ).map((item) => [item.id, item]),
      );
      for (const item of mine) {
        const found = byId.get(item.id);
        if (found) before.set(item, found);
      }
    }
    return cascaded.map((item) => (before.has(item) ? { ...item, before: before.get(item)! } : item));
  }

  /** The data of a message the bus carried without it (too large): the item read again and rendered here. */
  async function completeData(message: BusMessage, resource: ResourceMetadata | undefined): Promise<string | null> {
    const { item: about, rendering: by } = message;
    if (message.update.data !== undefined) return message.update.data;
    if (!resource || !about || !by) return null;
    const id = about.id as ItemId;
    if (about.deleted) return deletedData(resource, buildIri(resource, id));
    const owner = registry.resources.find((candidate) => candidate.name === by.resource);
    const read = owner?.operations.find((operation) => operation.name === by.operation);
    const item = read ? await reread(resource, id) : null;
    // Deleted since: its own update follows.
    return item && read ? render(resource, read, item) : null;
  }

  /** Hands a complete update to this instance's hub, and its item to the listeners. */
  function dispatch(message: BusMessage, data: string, resource: ResourceMetadata | undefined): void {
    const update: MercureUpdate = { ...message.update, data };
    hub
      .publish(update)
      .catch((error: unknown) =>
        log.error({ err: error, topic: update.topics[0] }, 'An update could not be published to the Mercure hub.'),
      );
    if (!resource || !message.item) return;
    const written: WrittenItem = { resource, id: message.item.id, deleted: message.item.deleted };
    for (const listener of listeners) {
      try {
        listener(written);
      } catch (error) {
        log.error({ err: error }, 'A listener of the committed writes failed.');
      }
    }
  }

  // What the bus delivers, from this instance or another: to this instance's hub and listeners, in the bus's order.
  // A message without its data is rendered here first; the ones after it wait for it (`rendering`).
  let rendering: Promise<void> | null = null;
  let waitingRenders = 0;
  bus.deliverTo((message) => {
    // An instance of another version of the app may know a resource this one does not: its hub has the update anyway.
    const resource = message.item && registry.resources.find((candidate) => candidate.name === message.item!.resource);
    const { data } = message.update;
    if (rendering === null && data !== undefined) return dispatch(message, data, resource);
    waitingRenders++;
    rendering = (rendering ?? Promise.resolve())
      .then(async () => {
        const complete = await completeData(message, resource).catch((error: unknown) => {
          log.error({ err: error, topic: message.update.topics[0] }, 'An update could not be rendered here.');
          return null;
        });
        if (complete !== null) dispatch(message, complete, resource);
      })
      .finally(() => {
        if (--waitingRenders === 0) rendering = null;
      });
  });

  return {
    needsTransaction: bus.reserve !== undefined,
    async prepare(transaction, cascaded) {
      const place = bus.reserve ? await bus.reserve(transaction) : undefined;
      const published = cascaded.filter((item) => item.resource.mercure !== null);
      return { place, cascaded: await readBefore(transaction, published) };
    },
    publish(write) {
      // Rendered now, in parallel with the writes after it; published in line.
      const updates = updatesOf(write);
      // Its failure is reported when its turn comes, not as an unhandled rejection before.
      updates.catch(() => undefined);
      tail = tail.then(async () => {
        let ready: Published[] = [];
        try {
          ready = await updates;
          await write.purged?.catch(() => undefined);
        } catch (error) {
          write.logger.error(
            { err: error, operation: write.operation.name },
            'The updates of a committed write could not be rendered; nothing was published for it.',
          );
        }
        const messages = ready.map(
          ({ update, item, rendering: read }): BusMessage => ({
            update: { ...update, id: `urn:uuid:${randomUUID()}` },
            item: { resource: item.resource.name, id: item.id, deleted: item.deleted },
            rendering: { resource: read.resource, operation: read.name },
          }),
        );
        // One write after the other: on PostgreSQL each send is a statement, and two in flight could commit the
        // other way. A write with a place sends even nothing, so that the writes after it need not wait for it.
        if (messages.length === 0 && write.prepared?.place === undefined) return;
        try {
          await bus.send(messages, write.prepared?.place);
        } catch (error) {
          write.logger.error({ err: error, operation: write.operation.name }, 'Updates could not be sent to the hubs.');
        }
      });
    },
    relay(update) {
      const id = update.id ?? `urn:uuid:${randomUUID()}`;
      const sent = tail.then(() => bus.send([{ update: { ...update, id } }]));
      tail = sent.catch(() => undefined);
      return sent.then(() => id);
    },
    listen: (listener) => void listeners.push(listener),
    drain: () => tail,
  };
}

/** A deleted item's data: its `@id` and `@type`. */
const deletedData = (resource: ResourceMetadata, iri: string): string =>
  JSON.stringify({ '@id': iri, '@type': toJsonLdType(resource) });
