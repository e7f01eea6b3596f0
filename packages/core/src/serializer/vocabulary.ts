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

// The vocabularies of the Hydra API documentation besides Hydra itself.
export const RDF_NS = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#';
export const RDFS_NS = 'http://www.w3.org/2000/01/rdf-schema#';
export const XSD_NS = 'http://www.w3.org/2001/XMLSchema#';
export const OWL_NS = 'http://www.w3.org/2002/07/owl#';
export const SCHEMA_NS = 'https://schema.org/';

/**
 * The range of each scalar type; none for `json` (any JSON value). `xsd:array` is what Hydra clients read as a list.
 */
export const SCALAR_RANGES: Readonly<Record<string, string | undefined>> = Object.freeze({
  string: 'xsd:string',
  text: 'xsd:string',
  password: 'xsd:string',
  file: 'xsd:string',
  integer: 'xsd:integer',
  float: 'xsd:float',
  boolean: 'xsd:boolean',
  datetime: 'xsd:dateTime',
  date: 'xsd:date',
  'string[]': 'xsd:array',
  json: undefined,
});

/** The schema.org action of each operation kind, as API Platform types them. */
export const OPERATION_ACTIONS: Readonly<Record<string, string | undefined>> = Object.freeze({
  getCollection: 'schema:FindAction',
  get: 'schema:FindAction',
  getSubresource: 'schema:FindAction',
  post: 'schema:CreateAction',
  put: 'schema:ReplaceAction',
  patch: undefined,
  delete: 'schema:DeleteAction',
});
