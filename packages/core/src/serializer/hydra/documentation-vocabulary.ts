/** The vocabularies of the Hydra API documentation besides Hydra itself (whose namespace is in `../vocabulary.ts`). */
export const RDF_NS = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#';
export const RDFS_NS = 'http://www.w3.org/2000/01/rdf-schema#';
export const XSD_NS = 'http://www.w3.org/2001/XMLSchema#';
export const OWL_NS = 'http://www.w3.org/2002/07/owl#';
export const SCHEMA_NS = 'https://schema.org/';

/** The range of each scalar type; none for `json` (any JSON value). `xsd:array` is what Hydra clients read as a list. */
export const SCALAR_RANGES: Readonly<Record<string, string | undefined>> = Object.freeze({
  string: 'xsd:string',
  text: 'xsd:string',
  password: 'xsd:string',
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
