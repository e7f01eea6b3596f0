/**
 * Normalization: an entity → the object sent to the client, in JSON-LD (`@id`, `@type`, IRIs) or plain JSON (the same
 * without `@` keys), by the operation's read groups. A plan per resource × groups says which fields are sent and
 * which relations are IRIs or embedded objects (API Platform's rule: embedded when the read groups reach a field of
 * the target; a resource already being embedded on the way down is an IRI, which cuts cycles). Embedded items of a
 * whole page are loaded with one query per relation and level, never one per item. Null values are left out, as
 * API Platform 3 does by default.
 */
import type { AccessRule } from '../metadata/declared.js';
import type {
  Entity,
  FieldMetadata,
  ItemId,
  MetadataRegistry,
  ResourceMetadata,
  ToOneFieldMetadata,
} from '../metadata/types.js';
import { isInGroups } from '../metadata/groups.js';
import { ANONYMOUS, type Caller, grantsField } from '../security/access.js';
import { formatDateTime } from './datetime.js';
import { toGroupsKey } from './groups-key.js';
import { buildIri } from '../metadata/iri.js';
import type { OutputFormat } from './vocabulary.js';

/** An item's `@type`: its resource's one type, or the list of them (`types`). */
export const toJsonLdType = (resource: ResourceMetadata): string | readonly string[] =>
  resource.types.length === 1 ? resource.types[0]! : resource.types;

/** Read groups in force, or null when the operation has none (every readable field is sent). */
export type ActiveGroups = ReadonlySet<string> | null;

export type PlannedField = { readonly name: string; readonly rule: AccessRule | undefined } & (
  | { readonly mode: 'value'; readonly write: (value: unknown) => unknown }
  | { readonly mode: 'iri' | 'iris'; readonly target: ResourceMetadata }
  | { readonly mode: 'embed' | 'embedMany'; readonly target: ResourceMetadata; readonly plan: NormalizationPlan }
);

/** Which fields of a resource are sent, and how, for one set of read groups. */
export interface NormalizationPlan {
  readonly resource: ResourceMetadata;
  readonly fields: readonly PlannedField[];
  /** The same fields by name: GraphQL asks the plan whether it sends a field, one field at a time. */
  readonly byName: ReadonlyMap<string, PlannedField>;
  /** Some field embeds its items, or is computed, here or in an embedded item (then `load` has work to do). */
  readonly embeds: boolean;
  /** The computed fields the plan sends, with their functions. */
  readonly computed: readonly { readonly name: string; readonly compute: (item: Entity) => unknown }[];
}

/** Items loaded for embedding: resource name → id → entity. */
export type LoadedItems = Map<string, Map<ItemId, Entity>>;

/** Reads items of a resource by id, with the to-many fields named (for their id lists). */
export type ReadMany = (
  resource: ResourceMetadata,
  ids: readonly ItemId[],
  toMany: readonly string[],
) => Promise<Entity[]>;

export interface Normalizer {
  plan(resource: ResourceMetadata, groups: ActiveGroups): NormalizationPlan;
  /**
   * Loads, in batches, every item the plan embeds for these entities (but those already `read`). A plan that embeds
   * nothing has nothing to wait for: its (empty) items come back at once, not as a promise.
   */
  load(
    plan: NormalizationPlan,
    entities: readonly Entity[],
    read?: ReadonlyMap<string, ReadonlyMap<ItemId, Entity>>,
  ): LoadedItems | Promise<LoadedItems>;
  /**
   * The to-one fields the plan embeds whose items need nothing but their own stored fields (no relation of theirs is
   * embedded or listed): a provider can read them with the page, in the same statement.
   */
  joinable(plan: NormalizationPlan): readonly ToOneFieldMetadata[];
  /** A collection member or an embedded item: `@id`, `@type`, `id`, then the fields. */
  item(
    plan: NormalizationPlan,
    entity: Entity,
    format: OutputFormat,
    loaded: LoadedItems,
    caller?: Caller,
  ): Record<string, unknown>;
  /** A whole item response: the same with `@context` first (JSON-LD). */
  document(
    plan: NormalizationPlan,
    entity: Entity,
    format: OutputFormat,
    loaded: LoadedItems,
    caller?: Caller,
  ): Record<string, unknown>;
  /**
   * A shape's values as a whole response (an operation's output): `@context`, `@id` (the request's path: a shape has no
   * IRI of its own), `@type`, then the fields; no `id`.
   */
  shapeDocument(
    plan: NormalizationPlan,
    values: Entity,
    format: OutputFormat,
    iri: string,
    loaded: LoadedItems,
    caller?: Caller,
  ): Record<string, unknown>;
}

export function createNormalizer(
  registry: MetadataRegistry,
  options: { skipNullValues: boolean; readMany: ReadMany },
): Normalizer {
  /** Every group used on a field of each resource: the embedding rule looks at them. */
  const groupsOf = new Map(registry.resources.map((r) => [r.name, new Set(r.fields.flatMap((f) => f.groups))]));
  const plans = new Map<string, NormalizationPlan>();
  const joinables = new WeakMap<NormalizationPlan, readonly ToOneFieldMetadata[]>();

  function embeds(
    field: FieldMetadata & { readableLink: boolean | undefined; target: string },
    groups: ActiveGroups,
    path: ReadonlySet<string>,
  ): boolean {
    if (field.readableLink === false || path.has(field.target)) return false;
    if (field.readableLink === true) return true;
    if (groups === null) return false;
    for (const group of groupsOf.get(field.target)!) if (groups.has(group)) return true;
    return false;
  }

  function build(resource: ResourceMetadata, groups: ActiveGroups, path: ReadonlySet<string>): NormalizationPlan {
    const fields: PlannedField[] = [];
    const computed: { name: string; compute: (item: Entity) => unknown }[] = [];
    for (const field of resource.fields) {
      if (!field.readable || !isInGroups(field, groups)) continue;
      if (field.kind === 'scalar') {
        if (field.computed) computed.push({ name: field.name, compute: field.computed });
        fields.push({
          name: field.name,
          rule: field.security,
          mode: 'value',
          write: field.type === 'datetime' ? (v) => formatDateTime(v as Date) : (v) => v,
        });
        continue;
      }
      const target = registry.resource(field.target);
      const many = field.kind === 'toMany';
      if (embeds(field, groups, path)) {
        const plan = build(target, groups, new Set([...path, target.name]));
        fields.push({ name: field.name, rule: field.security, mode: many ? 'embedMany' : 'embed', target, plan });
      } else {
        fields.push({ name: field.name, rule: field.security, mode: many ? 'iris' : 'iri', target });
      }
    }
    const loads = computed.length > 0 || fields.some((field) => field.mode === 'embed' || field.mode === 'embedMany');
    return { resource, fields, byName: new Map(fields.map((field) => [field.name, field])), embeds: loads, computed };
  }

  /**
   * Reads what the plan's embedded fields name and then, level by level, what their own plans embed. An item already
   * loaded (under another field, or joined to the page) is not read again, unless this plan sends to-many id lists it
   * was read without; either way its own embedded items are loaded for this plan too, which may embed deeper than the
   * one it was first loaded for (the same item is an IRI where a cycle is cut, an object elsewhere).
   */
  async function load(plan: NormalizationPlan, entities: readonly Entity[], loaded: LoadedItems): Promise<void> {
    // Computed fields: worked out once per item, all items of a level at once (a function may ask the database).
    for (const { name, compute } of plan.computed) {
      const values = await Promise.all(entities.map((entity) => compute(entity)));
      entities.forEach((entity, index) => {
        entity[name] = values[index];
      });
    }
    for (const field of plan.fields) {
      if (field.mode !== 'embed' && field.mode !== 'embedMany') continue;
      const known = loaded.get(field.target.name) ?? new Map<ItemId, Entity>();
      loaded.set(field.target.name, known);
      const ids = new Set<ItemId>();
      for (const entity of entities) {
        const value = entity[field.name];
        for (const id of field.mode === 'embed'
          ? value == null
            ? []
            : [value as number]
          : ((value as ItemId[] | undefined) ?? []))
          ids.add(id);
      }
      if (ids.size === 0) continue;
      const toMany = field.plan.fields.filter((f) => f.mode === 'iris' || f.mode === 'embedMany').map((f) => f.name);
      const wanted = [...ids].filter((id) => {
        const item = known.get(id);
        return !item || toMany.some((name) => item[name] === undefined);
      });
      if (wanted.length > 0) {
        for (const item of await options.readMany(field.target, wanted, toMany)) {
          const before = known.get(item.id!);
          known.set(item.id!, before ? { ...before, ...item } : item);
        }
      }
      if (!field.plan.embeds) continue;
      const items: Entity[] = [];
      for (const id of ids) {
        const item = known.get(id);
        if (item) items.push(item);
      }
      await load(field.plan, items, loaded);
    }
  }

  function fill(
    target: Record<string, unknown>,
    plan: NormalizationPlan,
    entity: Entity,
    format: OutputFormat,
    loaded: LoadedItems,
    caller: Caller,
  ): Record<string, unknown> {
    if (!plan.resource.shape) target.id = entity.id;
    for (const field of plan.fields) {
      // A field with its own rule that denies this caller is left out.
      if (field.rule && !grantsField(field.rule, caller, entity)) continue;
      const value = entity[field.name];
      if (value === null || value === undefined) {
        if (!options.skipNullValues) target[field.name] = null;
        continue;
      }
      switch (field.mode) {
        case 'value':
          target[field.name] = field.write(value);
          break;
        case 'iri':
          target[field.name] = buildIri(field.target, value as number);
          break;
        case 'iris':
          target[field.name] = (value as ItemId[]).map((id) => buildIri(field.target, id));
          break;
        case 'embed':
          target[field.name] = embedded(field.target, field.plan, value as number, format, loaded, caller);
          break;
        case 'embedMany':
          target[field.name] = (value as ItemId[]).map((id) =>
            embedded(field.target, field.plan, id, format, loaded, caller),
          );
          break;
      }
    }
    return target;
  }

  function embedded(
    resource: ResourceMetadata,
    plan: NormalizationPlan,
    id: ItemId,
    format: OutputFormat,
    loaded: LoadedItems,
    caller: Caller,
  ): unknown {
    const entity = loaded.get(resource.name)?.get(id);
    // Gone between the two reads: its IRI is still the truth about the link.
    if (!entity) return buildIri(resource, id);
    return item(plan, entity, format, loaded, caller);
  }

  function item(
    plan: NormalizationPlan,
    entity: Entity,
    format: OutputFormat,
    loaded: LoadedItems,
    caller: Caller = ANONYMOUS,
  ): Record<string, unknown> {
    if (format === 'json') return fill({}, plan, entity, format, loaded, caller);
    return fill(
      { '@id': buildIri(plan.resource, entity.id!), '@type': toJsonLdType(plan.resource) },
      plan,
      entity,
      format,
      loaded,
      caller,
    );
  }

  return {
    plan(resource, groups) {
      const cacheKey = `${resource.name}|${toGroupsKey(groups)}`;
      let plan = plans.get(cacheKey);
      if (!plan) plans.set(cacheKey, (plan = build(resource, groups, new Set([resource.name]))));
      return plan;
    },
    load(plan, entities, read) {
      const loaded: LoadedItems = new Map();
      if (read) for (const [name, items] of read) loaded.set(name, new Map(items));
      if (!plan.embeds) return loaded;
      return load(plan, entities, loaded).then(() => loaded);
    },
    joinable(plan) {
      let fields = joinables.get(plan);
      if (!fields) {
        fields = plan.fields
          .filter(
            (field) => field.mode === 'embed' && field.plan.fields.every((f) => f.mode === 'value' || f.mode === 'iri'),
          )
          .map((field) => plan.resource.fieldsByName.get(field.name) as ToOneFieldMetadata);
        joinables.set(plan, fields);
      }
      return fields;
    },
    item,
    shapeDocument(plan, values, format, iri, loaded, caller = ANONYMOUS) {
      if (format === 'json') return fill({}, plan, values, format, loaded, caller);
      const { resource } = plan;
      return fill(
        { '@context': `${registry.prefix}/contexts/${resource.name}`, '@id': iri, '@type': resource.name },
        plan,
        values,
        format,
        loaded,
        caller,
      );
    },
    document(plan, entity, format, loaded, caller = ANONYMOUS) {
      if (format === 'json') return fill({}, plan, entity, format, loaded, caller);
      const { resource } = plan;
      return fill(
        {
          '@context': `${registry.prefix}/contexts/${resource.name}`,
          '@id': buildIri(resource, entity.id!),
          '@type': toJsonLdType(resource),
        },
        plan,
        entity,
        format,
        loaded,
        caller,
      );
    },
  };
}
