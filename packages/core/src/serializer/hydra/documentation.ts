/**
 * The Hydra API documentation (`GET /api/docs.jsonld`): a `hydra:ApiDocumentation` with one `hydra:Class` per
 * resource (its properties with range, readable / writeable / required flags, its item operations and its custom
 * operations), one per shape (the input and output DTOs of custom operations, with their fields), the Entrypoint
 * class (one link per collection, whose range says what the collection holds, with the collection operations) and
 * the ConstraintViolation classes. `@vocab` is the absolute URL of this document on the request's host, so the types
 * and properties of every response expand to the classes and properties described here. What Hydra clients such as
 * API Platform Admin need from it is listed in `docs/api-docs.md`.
 */
import type { FieldMetadata, MetadataRegistry, OperationMetadata, ResourceMetadata } from '../../metadata/types.js';
import { toLowerFirst } from '../../metadata/naming.js';
import { listReadableFieldNames, type PlanOf, listShapeFieldNames, listWritableFieldNames } from '../field-access.js';
import { isRequiredField } from '../../schema/required-fields.js';
import { buildDocsUrl, listEntrypointResources } from '../jsonld/context.js';
import { HYDRA_NS } from '../vocabulary.js';
import { OPERATION_ACTIONS, OWL_NS, RDF_NS, RDFS_NS, SCALAR_RANGES, SCHEMA_NS, XSD_NS } from '../vocabulary.js';

type Node = Record<string, unknown>;

export interface HydraDocumentationOptions {
  /** `http://host:port` of the request: `@vocab` is absolute on it. */
  readonly origin: string;
  readonly planOf: PlanOf;
  readonly title: string;
  readonly description: string;
}

const id = (value: string): Node => ({ '@id': value });
const classId = (name: string) => `#${name}`;
/** A property's `@id`: its declared IRI when absolute, else `#<Type>/<field>` (what the contexts' `@vocab` gives). */
const propertyId = (field: FieldMetadata) => (/^[a-z][a-z0-9+.-]*:/i.test(field.iri) ? field.iri : `#${field.iri}`);

/**
 * The schema.org action of an operation: by its kind for the built-in ones (as API Platform types them); a custom one
 * only when it does what the action says (reads the resource, creates or replaces it, deletes it), else none.
 */
function actionOf(operation: OperationMetadata): string | undefined {
  if (operation.customName === null) return OPERATION_ACTIONS[operation.kind];
  if (operation.output || operation.input) return undefined;
  switch (operation.kind) {
    case 'get':
    case 'getCollection':
      return OPERATION_ACTIONS[operation.kind];
    case 'post':
      return operation.writeMode === 'create' ? OPERATION_ACTIONS.post : undefined;
    case 'put':
      return operation.writeMode === 'replace' ? OPERATION_ACTIONS.put : undefined;
    case 'delete':
      return operation.status === 204 ? OPERATION_ACTIONS.delete : undefined;
    default:
      return undefined;
  }
}

function operationNode(operation: OperationMetadata, resource: ResourceMetadata): Node {
  const action = actionOf(operation);
  const node: Node = {
    '@type': action ? ['hydra:Operation', action] : 'hydra:Operation',
    'hydra:method': operation.method,
    'hydra:title': operation.name,
    'rdfs:label': operation.description,
    'hydra:description': operation.description,
  };
  // What the body is: the operation's input shape, else the resource. A write declared without a body (`input: false`)
  // expects nothing, said as such (`owl:Nothing`), so a client does not send one; reads and DELETEs say nothing.
  if (operation.stages.deserialize) node['hydra:expects'] = id(classId(operation.input?.name ?? resource.name));
  else if (operation.method === 'POST' || operation.method === 'PUT' || operation.method === 'PATCH')
    node['hydra:expects'] = id('owl:Nothing');
  if (operation.kind === 'patch' && operation.stages.deserialize)
    node['hydra:expectsHeader'] = [
      { 'hydra:headerName': 'Content-Type', 'hydra:possibleValue': [...operation.inputFormats] },
    ];
  node['hydra:returns'] = id(
    operation.status === 204 || !operation.stages.serialize
      ? 'owl:Nothing'
      : operation.output
        ? classId(operation.output.name)
        : operation.collection && operation.method === 'GET'
          ? 'hydra:Collection'
          : classId(resource.name),
  );
  return node;
}

function supportedProperty(
  field: FieldMetadata,
  resource: ResourceMetadata,
  flags: { readable: boolean; writeable: boolean },
  subresources: readonly { operation: OperationMetadata; target: ResourceMetadata }[],
): Node {
  const property: Node = {
    '@id': propertyId(field),
    '@type': field.kind === 'scalar' ? 'rdf:Property' : 'hydra:Link',
    'rdfs:label': field.name,
    'rdfs:domain': id(classId(resource.name)),
  };
  const range = field.kind === 'scalar' ? SCALAR_RANGES[field.type] : classId(field.target);
  if (range) property['rdfs:range'] = id(range);
  if (field.kind === 'toOne') property['owl:maxCardinality'] = 1;
  if (subresources.length > 0)
    property['hydra:supportedOperation'] = subresources.map((s) => operationNode(s.operation, s.target));
  const node: Node = {
    '@type': 'hydra:SupportedProperty',
    'hydra:property': property,
    'hydra:title': field.name,
    'hydra:required': isRequiredField(field, null),
    'hydra:readable': flags.readable,
    'hydra:writeable': flags.writeable,
  };
  if (field.description) node['hydra:description'] = field.description;
  return node;
}

function resourceClass(resource: ResourceMetadata, registry: MetadataRegistry, planOf: PlanOf): Node {
  const readable = listReadableFieldNames(resource, planOf);
  const writable = listWritableFieldNames(resource);
  // Subresource operations sit on the relation they follow: the last step of their path is this resource's field.
  const subresourcesOf = (field: FieldMetadata) =>
    registry.resources.flatMap((target) =>
      target.operations
        .filter((o) => o.subresource?.at(-1)?.resource === resource.name && o.subresource.at(-1)!.field === field.name)
        .map((operation) => ({ operation, target })),
    );
  const node = classNode(resource);
  node['hydra:supportedProperty'] = resource.fields.map((field) =>
    supportedProperty(
      field,
      resource,
      { readable: readable.has(field.name), writeable: writable.has(field.name) },
      subresourcesOf(field),
    ),
  );
  // The built-in item operations, then every custom one (item or collection level, whatever it sends): Hydra clients
  // such as API Platform Admin edit with the first PUT or PATCH listed, which must stay the built-in one.
  const builtin = resource.operations.filter((o) => o.customName === null && !o.collection);
  const custom = resource.operations.filter((o) => o.customName !== null);
  node['hydra:supportedOperation'] = [...builtin, ...custom].map((o) => operationNode(o, resource));
  return node;
}

/** The head of a class node (a resource's or a shape's): its id, type, label, title and description. */
function classNode(type: ResourceMetadata): Node {
  const node: Node = {
    '@id': classId(type.name),
    '@type': 'hydra:Class',
    'rdfs:label': type.name,
    'hydra:title': type.name,
  };
  if (type.description) node['hydra:description'] = type.description;
  return node;
}

/** A shape (a custom operation's input or output DTO): a class of its own, with its fields. */
function shapeClass(shape: ResourceMetadata, registry: MetadataRegistry, planOf: PlanOf): Node {
  const { readable, writable } = listShapeFieldNames(shape, registry, planOf);
  const node = classNode(shape);
  node['hydra:supportedProperty'] = shape.fields
    .filter((field) => readable.has(field.name) || writable.has(field.name))
    .map((field) =>
      supportedProperty(field, shape, { readable: readable.has(field.name), writeable: writable.has(field.name) }, []),
    );
  node['hydra:supportedOperation'] = [];
  return node;
}

function entrypointClass(registry: MetadataRegistry): Node {
  return {
    '@id': classId('Entrypoint'),
    '@type': 'hydra:Class',
    'rdfs:label': 'Entrypoint',
    'hydra:title': 'Entrypoint',
    'hydra:description': 'The API entrypoint: one link per collection.',
    'hydra:supportedProperty': listEntrypointResources(registry).map((resource) => ({
      '@type': 'hydra:SupportedProperty',
      'hydra:property': {
        '@id': `#Entrypoint/${toLowerFirst(resource.name)}`,
        '@type': 'hydra:Link',
        'rdfs:label': `The collection of ${resource.name} resources`,
        'rdfs:domain': id(classId('Entrypoint')),
        'rdfs:range': [
          id('hydra:Collection'),
          {
            'owl:equivalentClass': {
              'owl:onProperty': id('hydra:member'),
              'owl:allValuesFrom': id(classId(resource.name)),
            },
          },
        ],
        // The operations of the collection itself; custom ones (at their own paths) are on the resource's class.
        'hydra:supportedOperation': resource.operations
          .filter((o) => o.collection && !o.subresource && o.customName === null)
          .map((o) => operationNode(o, resource)),
      },
      'hydra:title': `The collection of ${resource.name} resources`,
      'hydra:readable': true,
      'hydra:writeable': false,
    })),
    'hydra:supportedOperation': [
      {
        '@type': 'hydra:Operation',
        'hydra:method': 'GET',
        'hydra:title': 'entrypoint',
        'rdfs:label': 'The API entrypoint.',
        'hydra:returns': id(classId('Entrypoint')),
      },
    ],
  };
}

/**
 * The property nodes of the violation classes: their `@id`s are what `/api/contexts/ConstraintViolationList` expands
 * the terms to (`#violations`, `#propertyPath`…: its `@vocab` alone, as API Platform Admin needs).
 */
const violationProperty = (name: string, domain: string, range: string, description: string): Node => ({
  '@type': 'hydra:SupportedProperty',
  'hydra:property': {
    '@id': `#${name}`,
    '@type': 'rdf:Property',
    'rdfs:label': name,
    'rdfs:domain': id(classId(domain)),
    'rdfs:range': id(range),
  },
  'hydra:title': name,
  'hydra:description': description,
  'hydra:required': false,
  'hydra:readable': true,
  'hydra:writeable': false,
});

const VIOLATION_CLASSES: readonly Node[] = [
  {
    '@id': classId('ConstraintViolation'),
    '@type': 'hydra:Class',
    'rdfs:label': 'ConstraintViolation',
    'hydra:title': 'A constraint violation',
    'hydra:supportedProperty': [
      violationProperty('propertyPath', 'ConstraintViolation', 'xsd:string', 'The property path of the violation.'),
      violationProperty('message', 'ConstraintViolation', 'xsd:string', 'The message of the violation.'),
      violationProperty('code', 'ConstraintViolation', 'xsd:string', 'The code of the violated constraint.'),
    ],
  },
  {
    '@id': classId('ConstraintViolationList'),
    '@type': 'hydra:Class',
    'rdfs:subClassOf': id('hydra:Error'),
    'rdfs:label': 'ConstraintViolationList',
    'hydra:title': 'A constraint violation list',
    'hydra:supportedProperty': [
      violationProperty('violations', 'ConstraintViolationList', classId('ConstraintViolation'), 'The violations.'),
    ],
  },
];

/** The whole document for one origin. */
export function buildHydraDocumentation(registry: MetadataRegistry, options: HydraDocumentationOptions): Node {
  const doc: Node = {
    '@context': {
      '@vocab': `${buildDocsUrl(options.origin, registry)}#`,
      hydra: HYDRA_NS,
      rdf: RDF_NS,
      rdfs: RDFS_NS,
      xsd: XSD_NS,
      owl: OWL_NS,
      schema: SCHEMA_NS,
    },
    '@id': `${registry.prefix}/docs.jsonld`,
    '@type': 'hydra:ApiDocumentation',
    'hydra:title': options.title,
  };
  if (options.description) doc['hydra:description'] = options.description;
  doc['hydra:entrypoint'] = id(registry.prefix || '/');
  doc['hydra:supportedClass'] = [
    ...registry.resources.map((resource) => resourceClass(resource, registry, options.planOf)),
    ...registry.shapes.map((shape) => shapeClass(shape, registry, options.planOf)),
    entrypointClass(registry),
    ...VIOLATION_CLASSES,
  ];
  return doc;
}
