/**
 * What one GraphQL request keeps while its fields resolve, in one object created with the request's context: the
 * batch loaders of items and of to-many id lists (one read per resource and tick, never one per item), the items read
 * with a page (joined to it), which operation read each item (its groups decide its fields), computed values, and the
 * normalization plans of the request's groups. A mutation's write makes what was read before it stale: `afterWrite`
 * drops the loaders and joined items, so the fields resolved after it read the rows as they are now.
 */
import DataLoader from 'dataloader';
import type { ItemId, OperationMetadata, ResourceMetadata, ScalarFieldMetadata } from '../metadata/types.js';
import { resolveActiveGroups } from '../pipeline/groups.js';
import type { Runtime } from '../pipeline/operation-context.js';
import type { Caller } from '../security/access.js';
import type { NormalizationPlan } from '../serializer/normalize.js';
import type { Entity } from '../metadata/types.js';

export class GraphQLRequestScope {
  private items = new Map<string, DataLoader<ItemId, Entity | null>>();
  private links = new Map<string, DataLoader<ItemId, ItemId[]>>();
  private joined = new Map<string, ReadonlyMap<ItemId, Entity>>();
  // Made on first use: most requests remember no reader and compute nothing, and a weak map costs every young
  // generation's collection something, even empty.
  private readers: WeakMap<object, OperationMetadata> | undefined;
  private computedValues: WeakMap<Entity, Map<string, unknown>> | undefined;
  private readonly plans = new Map<OperationMetadata, NormalizationPlan>();

  constructor(
    private readonly runtime: Runtime,
    readonly caller: Caller,
  ) {}

  /**
   * The item a to-one relation names: a joined one at once (a plain value lets graphql-jit go on without waiting: on a
   * page of 10 books with their authors, 10 promises fewer), else through the batch loader.
   */
  item(resource: ResourceMetadata, id: ItemId): Entity | Promise<Entity | null> {
    return this.joined.get(resource.name)?.get(id) ?? this.itemLoader(resource).load(id);
  }

  /** Several items of a resource, batched with every other read of the tick (a missing one is null). */
  async itemsOf(resource: ResourceMetadata, ids: readonly ItemId[]): Promise<(Entity | null)[]> {
    const found = await this.itemLoader(resource).loadMany(ids);
    return found.map((item) => (item instanceof Error ? null : item));
  }

  /** The ids a to-many relation of an item holds, for items read without them. */
  linksOf(owner: ResourceMetadata, field: string, id: ItemId): Promise<ItemId[]> {
    const key = `${owner.name}.${field}`;
    let loader = this.links.get(key);
    if (!loader) {
      loader = new DataLoader(async (ids) => {
        const found = await this.runtime.readMany(owner, ids, [field]);
        const byId = new Map(found.map((item) => [item.id!, (item[field] as ItemId[] | undefined) ?? []]));
        return ids.map((one) => byId.get(one) ?? []);
      });
      this.links.set(key, loader);
    }
    return loader.load(id);
  }

  /** Keeps the items a page read joined to it (resource name → id → item), so the loaders read only the others. */
  keepJoined(related: ReadonlyMap<string, ReadonlyMap<ItemId, Entity>>): void {
    for (const [name, items] of related) {
      const known = this.joined.get(name);
      this.joined.set(name, known ? new Map([...known, ...items]) : items);
    }
  }

  /** Keeps which operation read an item or a shape's values (objects only: a provider may return anything). */
  remember<T>(item: T, operation: OperationMetadata): T {
    if (item !== null && typeof item === 'object') (this.readers ??= new WeakMap()).set(item, operation);
    return item;
  }

  /** The operation that read an item, when it was remembered. */
  readerOf(item: Entity): OperationMetadata | undefined {
    return this.readers?.get(item);
  }

  /** The plan of the fields an operation's read groups send of a resource (or shape), for this caller. */
  plan(owner: ResourceMetadata, operation: OperationMetadata): NormalizationPlan {
    let plan = this.plans.get(operation);
    if (!plan) {
      plan = this.runtime.normalizer.plan(
        owner,
        resolveActiveGroups(operation.normalizationGroups, { operation, caller: this.caller }),
      );
      this.plans.set(operation, plan);
    }
    return plan;
  }

  /** A computed field's value, worked out once per item and request (an asynchronous function is awaited once). */
  computed(entity: Entity, field: ScalarFieldMetadata): unknown {
    this.computedValues ??= new WeakMap();
    let values = this.computedValues.get(entity);
    if (!values) this.computedValues.set(entity, (values = new Map()));
    if (values.has(field.name)) return values.get(field.name);
    const value = field.computed!(entity);
    values.set(field.name, value);
    return value;
  }

  /** After a mutation's write: nothing read before it is served again. */
  afterWrite(): void {
    this.items = new Map();
    this.links = new Map();
    this.joined = new Map();
  }

  private itemLoader(resource: ResourceMetadata): DataLoader<ItemId, Entity | null> {
    let loader = this.items.get(resource.name);
    if (!loader) {
      // Items only: the ids of their to-many relations are loaded when a query asks for them (linksOf).
      loader = new DataLoader(async (ids) => {
        const found = await this.runtime.readMany(resource, ids, []);
        const byId = new Map(found.map((item) => [item.id!, item]));
        return ids.map((id) => byId.get(id) ?? null);
      });
      this.items.set(resource.name, loader);
    }
    return loader;
  }
}
