/**
 * What a caller sees of an item resolved in GraphQL, by the rules REST applies: the fields the normalization plan of
 * the operation that read the item sends (its read groups for this caller), less those whose own rule denies the
 * caller (`grantsField`, the check REST's normalizer makes). And, as in API Platform's GraphQL, an item reached through
 * a relation shows only to callers its resource's item GET lets read it: a denied one resolves to null, with no error
 * (the query asked for the relation, not for the item).
 */
import type { FieldMetadata, ResourceMetadata } from '../metadata/types.js';
import { grants, grantsField } from '../security/access.js';
import { buildIri } from '../metadata/iri.js';
import type { Entity } from '../metadata/types.js';
import type { ReadModel } from './read-model.js';
import type { GraphQLRequestScope } from './request-scope.js';

/** Whether an item shows a field of its type to the request's caller; decided once per field what needs asking. */
export type FieldCheck = (scope: GraphQLRequestScope, entity: Entity) => boolean;

export function createFieldCheck(model: ReadModel, owner: ResourceMetadata, field: FieldMetadata): FieldCheck {
  const rule = field.security;
  const granted = (scope: GraphQLRequestScope, entity: Entity) => !rule || grantsField(rule, scope.caller, entity);
  if (!model.checksPerItem(owner)) return granted;
  const differ = model.groupsDiffer(owner);
  const byId = model.itemOperation(owner);
  return (scope, entity) => {
    const reader = owner.shape ? scope.readerOf(entity) : (differ && scope.readerOf(entity)) || byId;
    if (reader?.normalizationGroups && !scope.plan(owner, reader).byName.has(field.name)) return false;
    return granted(scope, entity);
  };
}

/**
 * An item reached through a relation, or null when the target's item GET denies the caller. Without a rule the item
 * passes as it is, so a page of books with public authors waits for nothing more.
 */
export function filterVisibleRelated(
  model: ReadModel,
  scope: GraphQLRequestScope,
  resource: ResourceMetadata,
  item: Entity | null | Promise<Entity | null>,
): Entity | null | Promise<Entity | null> {
  const rule = model.itemOperation(resource)?.security;
  if (!rule) return item;
  const check = (found: Entity | null): Entity | null | Promise<Entity | null> => {
    if (!found) return null;
    const granted = grants(rule.rule, scope.caller, {
      object: found,
      previousObject: null,
      request: { method: 'GET', path: buildIri(resource, found.id!) },
    });
    return granted instanceof Promise ? granted.then((yes) => (yes ? found : null)) : granted ? found : null;
  };
  return item instanceof Promise ? item.then(check) : check(item);
}
