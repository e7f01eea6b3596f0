/** IRIs of items: `/api/books/7`, and back. */
import type { MetadataRegistry, ResourceMetadata } from './types.js';

/** The largest id a (32-bit) integer column holds; anything above cannot exist. */
export const MAX_ID = 2_147_483_647;

export const buildIri = (resource: ResourceMetadata, id: number): string => `${resource.collectionPath}/${id}`;

/** Parses an id from a URI variable or IRI segment: a positive integer in range, or undefined. */
export function parseId(raw: string): number | undefined {
  if (!/^[1-9][0-9]{0,9}$/.test(raw)) return undefined;
  const id = Number(raw);
  return id <= MAX_ID ? id : undefined;
}

/** `http://host:8000/api/books/1` → `/api/books/1`; a path stays as it is. Clients may send absolute IRIs. */
export const toIriPath = (iri: string): string => iri.replace(/^https?:\/\/[^/?#]+(?=\/)/i, '');

/** The resource and id an IRI points at, or undefined when it is no item IRI of this API. */
export function parseIri(
  value: string,
  registry: MetadataRegistry,
): { resource: ResourceMetadata; id: number } | undefined {
  const iri = toIriPath(value);
  const slash = iri.lastIndexOf('/');
  if (slash <= 0) return undefined;
  const resource = registry.resourceByPath(iri.slice(0, slash));
  const id = parseId(iri.slice(slash + 1));
  return resource && id !== undefined ? { resource, id } : undefined;
}
