/** Every JSON-LD and Hydra string the framework writes, in one place. */
export const HYDRA_NS = 'http://www.w3.org/ns/hydra/core#';
export const API_DOC_REL = `${HYDRA_NS}apiDocumentation`;

export const JSONLD = Object.freeze({
  context: '@context',
  id: '@id',
  type: '@type',
  vocab: '@vocab',
});

export const HYDRA = Object.freeze({
  collection: 'hydra:Collection',
  member: 'hydra:member',
  totalItems: 'hydra:totalItems',
  view: 'hydra:view',
  partialCollectionView: 'hydra:PartialCollectionView',
  first: 'hydra:first',
  last: 'hydra:last',
  previous: 'hydra:previous',
  next: 'hydra:next',
  search: 'hydra:search',
  error: 'hydra:Error',
  title: 'hydra:title',
  description: 'hydra:description',
});

export const MEDIA_TYPES = Object.freeze({
  jsonld: 'application/ld+json',
  json: 'application/json',
  mergePatch: 'application/merge-patch+json',
  problem: 'application/problem+json',
});

/** The output formats of resource operations, in the order they are preferred. */
export type OutputFormat = 'jsonld' | 'json';
