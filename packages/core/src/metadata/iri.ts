/** IRIs of items: `/api/books/7`, and back. */
import { parseItemId } from './identifier.js';
import type { ItemId, MetadataRegistry, ResourceMetadata } from './types.js';

export const buildIri = (resource: ResourceMetadata, id: ItemId): string => `${resource.collectionPath}/${id}`;

/**
 * Parses a resource's id from a URI variable or IRI segment: one of its ids (a positive integer in range, or a UUID),
 * or undefined.
 */
export const parseId = (resource: ResourceMetadata, raw: string): ItemId | undefined =>
  parseItemId(resource.identifier, raw);

/** `http://host:8000/api/books/1` → `/api/books/1`; a path stays as it is. Clients may send absolute IRIs. */
export const toIriPath = (iri: string): string => iri.replace(/^https?:\/\/[^/?#]+(?=\/)/i, '');

/** The resource and id an IRI points at, or undefined when it is no item IRI of this API. */
export function parseIri(
  value: string,
  registry: MetadataRegistry,
): { resource: ResourceMetadata; id: ItemId } | undefined {
  const iri = toIriPath(value);
  const slash = iri.lastIndexOf('/');
  if (slash <= 0) return undefined;
  const resource = registry.resourceByPath(iri.slice(0, slash));
  const id = resource && parseId(resource, iri.slice(slash + 1));
  return resource && id !== undefined ? { resource, id } : undefined;
}
