/**
 * Which operations answer with an `ETag`: decided from the metadata alone, so that the routes that send the header and
 * the OpenAPI document that announces it agree.
 */
import { findBuiltinOperation } from './builtin-operation.js';
import type { OperationMetadata, ResourceMetadata } from './types.js';

const sameGroups = (
  a: OperationMetadata['normalizationGroups'],
  b: OperationMetadata['normalizationGroups'],
): boolean =>
  typeof a !== 'function' && typeof b !== 'function' && (a === b || JSON.stringify(a) === JSON.stringify(b));

/**
 * Every GET (item, collection, subresource); and a POST, PUT or PATCH whose body is the item exactly as its GET
 * renders it (the same fixed read groups, both through the built-in state), so a client can send that tag back in
 * If-Match without reading the item again. A groups function may tell operations apart: no tag then.
 */
export function carriesEntityTag(operation: OperationMetadata, resource: ResourceMetadata): boolean {
  if (operation.method === 'GET') return true;
  if (!operation.stages.serialize || operation.kind === 'delete') return false;
  const get = findBuiltinOperation(resource, 'get');
  if (!get || get.provider !== undefined || operation.processor !== undefined) return false;
  return sameGroups(operation.normalizationGroups, get.normalizationGroups);
}
