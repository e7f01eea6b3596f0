/**
 * The to-one relations a collection query selects on its items (under `edges { node { … } }` or `collection { … }`,
 * through fragments too): the page's read may join them (`StateContext.embed`), and the resolvers take the joined
 * items instead of loading them, so a page of books with their authors is one statement, as over REST. What the caller
 * may see is still decided field by field by the resolvers; the join only saves the loaders their batch read.
 */
import type { FieldNode, GraphQLResolveInfo, SelectionSetNode } from 'graphql';
import type { ResourceMetadata, ToOneFieldMetadata } from '../metadata/types.js';

/** The item levels of the two collection shapes: connections (`edges.node`) and pages (`collection`). */
const ITEM_PATHS: readonly (readonly string[])[] = [['edges', 'node'], ['collection']];

/**
 * The fields selected directly in a selection set, fragments followed; directives are not read (a join too many is
 * harmless).
 */
function selectedFields(
  set: SelectionSetNode | undefined,
  info: GraphQLResolveInfo,
  into: FieldNode[] = [],
): FieldNode[] {
  for (const selection of set?.selections ?? []) {
    if (selection.kind === 'Field') into.push(selection);
    else if (selection.kind === 'InlineFragment') selectedFields(selection.selectionSet, info, into);
    else selectedFields(info.fragments[selection.name.value]?.selectionSet, info, into);
  }
  return into;
}

function namesAt(
  fields: readonly FieldNode[],
  path: readonly string[],
  info: GraphQLResolveInfo,
  names: Set<string>,
): void {
  if (path.length === 0) {
    for (const field of fields) names.add(field.name.value);
    return;
  }
  const [head, ...rest] = path;
  for (const field of fields)
    if (field.name.value === head) namesAt(selectedFields(field.selectionSet, info), rest, info, names);
}

/** One array per resource and set of relations, so the state's per-`embed` caches see the same array each time. */
const chosen = new WeakMap<ResourceMetadata, Map<string, readonly ToOneFieldMetadata[]>>();

/**
 * Worked out once per query field: mercurius keeps each query's parsed document, so a query sent again reaches its
 * resolver with the same (immutable) field node, and walking its selection again cost more than the join saved.
 */
const byFieldNode = new WeakMap<FieldNode, readonly ToOneFieldMetadata[] | null>();

export function findSelectedToOneRelations(
  resource: ResourceMetadata,
  info: GraphQLResolveInfo,
): readonly ToOneFieldMetadata[] | undefined {
  const node = info.fieldNodes.length === 1 ? info.fieldNodes[0]! : undefined;
  const known = node && byFieldNode.get(node);
  if (known !== undefined) return known ?? undefined;
  const relations = walk(resource, info);
  if (node) byFieldNode.set(node, relations ?? null);
  return relations;
}

function walk(resource: ResourceMetadata, info: GraphQLResolveInfo): readonly ToOneFieldMetadata[] | undefined {
  const names = new Set<string>();
  const top = info.fieldNodes.flatMap((node) => selectedFields(node.selectionSet, info));
  for (const path of ITEM_PATHS) namesAt(top, path, info, names);
  const relations = resource.fields.filter(
    (field): field is ToOneFieldMetadata => field.kind === 'toOne' && names.has(field.name),
  );
  if (relations.length === 0) return undefined;
  const key = relations.map((field) => field.name).join(',');
  let byKey = chosen.get(resource);
  if (!byKey) chosen.set(resource, (byKey = new Map()));
  let embed = byKey.get(key);
  if (!embed) byKey.set(key, (embed = relations));
  return embed;
}
