/**
 * Cache tags: the IRIs a cacheable response shows, so that a write can purge exactly the responses that showed what
 * it wrote. Worked out from the normalization plan and the items (not from the body), so JSON and JSON-LD get the
 * same tags: every item rendered, embedded ones at every depth; and a collection tag (the resource's collection path)
 * for each list whose members a new item could join — the collection itself, and every to-many relation shown
 * (`iris`, `embedMany`). A write purges its items' IRIs and their collection paths (`listWrittenTags`), so a response
 * showing a list is purged when an item is created, changed (it may leave a filter) or deleted.
 */
import type { Entity, ItemId, MetadataRegistry, ResourceMetadata } from '../metadata/types.js';
import { buildIri } from '../metadata/iri.js';
import type { LoadedItems, NormalizationPlan } from '../serializer/normalize.js';

/** The tags of the items of `plan` rendered (and of what they embed), added to `tags`. */
export function collectCacheTags(
  plan: NormalizationPlan,
  items: readonly Entity[],
  loaded: LoadedItems,
  tags: Set<string>,
): Set<string> {
  // Each (plan, item) once: a graph of embeds may come back to an item already walked.
  const seen = new Set<string>();
  const walk = (current: NormalizationPlan, item: Entity): void => {
    const iri = buildIri(current.resource, item.id as ItemId);
    tags.add(iri);
    for (const field of current.fields) {
      if (field.mode === 'iris' || field.mode === 'embedMany') tags.add(field.target.collectionPath);
      if (field.mode !== 'embed' && field.mode !== 'embedMany') continue;
      const value = item[field.name];
      const ids = field.mode === 'embed' ? (value == null ? [] : [value as ItemId]) : ((value as ItemId[]) ?? []);
      for (const id of ids) {
        tags.add(buildIri(field.target, id));
        const key = `${field.target.name} ${String(id)} ${field.name}`;
        const embedded = loaded.get(field.target.name)?.get(id);
        if (embedded && !seen.has(key)) {
          seen.add(key);
          walk(field.plan, embedded);
        }
      }
    }
  };
  for (const item of items) walk(plan, item);
  return tags;
}

/** The resources reachable from one through its relations, at any depth, by resource. */
const reachable = new WeakMap<ResourceMetadata, readonly string[]>();

/**
 * The tags of a filtered (or ordered) collection beyond its items: a filter or an order may go through relations
 * (`?author.name=…`, `order[author.name]`, a custom filter's `match('author.name', …)`), so which items the page
 * holds, and in what order, may change with a write of a related item it does not show. The collection path of every
 * resource reachable through relations is added: such writes purge the page (more purges, never a stale page).
 */
export function collectFilterTags(registry: MetadataRegistry, resource: ResourceMetadata, tags: Set<string>): void {
  let paths = reachable.get(resource);
  if (!paths) {
    const found = new Set<ResourceMetadata>([resource]);
    const queue = [resource];
    while (queue.length > 0)
      for (const field of queue.shift()!.fields) {
        if (field.kind === 'scalar') continue;
        const target = registry.resource(field.target);
        if (!found.has(target)) {
          found.add(target);
          queue.push(target);
        }
      }
    paths = [...found].filter((target) => target !== resource).map((target) => target.collectionPath);
    reachable.set(resource, paths);
  }
  for (const path of paths) tags.add(path);
}

/**
 * The header value of `tags`, at most `maxBytes` long. Over it, each item IRI gives way to its resource's collection
 * path, which every write of that resource purges too: fewer, broader tags, never a missed purge.
 */
export function limitCacheTags(
  tags: ReadonlySet<string>,
  options: { readonly separator: string; readonly maxBytes: number; readonly resources: readonly ResourceMetadata[] },
): string {
  const value = [...tags].join(options.separator);
  if (Buffer.byteLength(value) <= options.maxBytes) return value;
  const broad = new Set<string>();
  for (const tag of tags) {
    const owner = options.resources.find(
      (resource) => tag === resource.collectionPath || tag.startsWith(`${resource.collectionPath}/`),
    );
    broad.add(owner ? owner.collectionPath : tag);
  }
  return [...broad].join(options.separator);
}

/** The tags a write of an item purges: the item's IRI and its resource's collection path. */
export function listWrittenTags(resource: ResourceMetadata, id: unknown): string[] {
  return [buildIri(resource, id as ItemId), resource.collectionPath];
}
