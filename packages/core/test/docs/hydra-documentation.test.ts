/**
 * The Hydra API documentation at `/api/docs.jsonld`, as API Platform Admin reads it: `@vocab` on the request's host,
 * one class per resource with its properties (range, readable / writeable / required, `hydra:Link` and
 * `owl:maxCardinality` on relations, declared IRIs), its item operations, the Entrypoint class whose properties say
 * what each collection holds, and the ConstraintViolation classes.
 */
import { describe, expect, it } from 'vitest';
import { defineResource, NotBlank, NotNull } from '@resource-api/core';
import { testDatabases } from '@resource-api/core/testing';
import { call, useApp } from '../helpers.js';

const HYDRA = 'http://www.w3.org/ns/hydra/core#';

const Publisher = defineResource({
  name: 'Publisher',
  description: 'A publishing house.',
  fields: {
    name: {
      type: 'string',
      iri: 'https://schema.org/name',
      groups: ['novel:read'],
      constraints: [NotBlank()],
      description: 'Its name.',
    },
    founded: { type: 'date', nullable: true, constraints: [NotNull({ groups: ['strict'] })] },
    novels: { toMany: 'Novel', mappedBy: 'publisher', subresource: true },
  },
});

const Novel = defineResource({
  name: 'Novel',
  normalizationGroups: ['novel:read'],
  denormalizationGroups: ['novel:write'],
  operations: ['getCollection', 'get', 'post', 'patch', 'delete'],
  fields: {
    title: {
      type: 'string',
      groups: ['novel:read', 'novel:write'],
      constraints: [NotBlank()],
      description: 'The title.',
    },
    pages: { type: 'integer', default: 100, groups: ['novel:read', 'novel:write'] },
    rating: { type: 'float', nullable: true, groups: ['novel:read'] },
    secret: { type: 'text', nullable: true, groups: ['novel:write'] },
    internal: { type: 'json', nullable: true },
    publisher: { toOne: 'Publisher', inversedBy: 'novels', groups: ['novel:read', 'novel:write'] },
    tags: { type: 'string[]', default: [], groups: ['novel:read', 'novel:write'] },
    published: { type: 'boolean', default: false, groups: ['novel:read', 'novel:write'] },
    releasedAt: { type: 'datetime', nullable: true, writable: false, groups: ['novel:read'] },
  },
});

const Note = defineResource({ name: 'Note', operations: ['get'], fields: { text: { type: 'string' } } });

// biome-ignore lint/suspicious/noExplicitAny: the generated documentation, JSON-LD walked freely by the assertions
type Node = any;

describe('the Hydra API documentation', () => {
  const [sqlite] = testDatabases(undefined);
  const app = useApp(sqlite!, {
    resources: [Publisher, Novel, Note],
    documentation: { title: 'Library', description: 'Books and more.' },
  });
  const docs = async (): Promise<Node> => {
    const response = await call(app(), {
      method: 'GET',
      url: '/api/docs.jsonld',
      headers: { host: 'library.example:8443', accept: '*/*' },
    });
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('application/ld+json; charset=utf-8');
    return response.body;
  };
  const classOf = (doc: Node, id: string) => doc['hydra:supportedClass'].find((c: Node) => c['@id'] === id);
  const propertyOf = (doc: Node, classId: string, title: string) =>
    classOf(doc, classId)['hydra:supportedProperty'].find((p: Node) => p['hydra:title'] === title);

  it('is a hydra:ApiDocumentation whose @vocab is its own absolute URL on the request host', async () => {
    const doc = await docs();
    expect(doc['@context']).toMatchObject({
      '@vocab': 'http://library.example:8443/api/docs.jsonld#',
      hydra: HYDRA,
      rdfs: 'http://www.w3.org/2000/01/rdf-schema#',
      owl: 'http://www.w3.org/2002/07/owl#',
      xsd: 'http://www.w3.org/2001/XMLSchema#',
    });
    expect(doc).toMatchObject({
      '@id': '/api/docs.jsonld',
      '@type': 'hydra:ApiDocumentation',
      'hydra:title': 'Library',
      'hydra:description': 'Books and more.',
      'hydra:entrypoint': { '@id': '/api' },
    });
    expect(doc['hydra:supportedClass'].map((c: Node) => c['@id'])).toEqual([
      '#Publisher',
      '#Novel',
      '#Note',
      '#Entrypoint',
      '#ConstraintViolation',
      '#ConstraintViolationList',
    ]);
    // The same document is what Accept: application/ld+json gets on /api/docs.
    const negotiated = await call(app(), {
      method: 'GET',
      url: '/api/docs',
      headers: { host: 'library.example:8443', accept: 'application/ld+json' },
    });
    expect(negotiated.body).toEqual(doc);
  });

  it('describes each property with its range, flags and IRI', async () => {
    const doc = await docs();
    expect(classOf(doc, '#Novel')).toMatchObject({
      '@type': 'hydra:Class',
      'hydra:title': 'Novel',
      'rdfs:label': 'Novel',
    });
    expect(classOf(doc, '#Publisher')['hydra:description']).toBe('A publishing house.');
    expect(propertyOf(doc, '#Novel', 'title')).toEqual({
      '@type': 'hydra:SupportedProperty',
      'hydra:property': {
        '@id': '#Novel/title',
        '@type': 'rdf:Property',
        'rdfs:label': 'title',
        'rdfs:domain': { '@id': '#Novel' },
        'rdfs:range': { '@id': 'xsd:string' },
      },
      'hydra:title': 'title',
      'hydra:required': true,
      'hydra:readable': true,
      'hydra:writeable': true,
      'hydra:description': 'The title.',
    });
    const flags = (title: string) => {
      const p = propertyOf(doc, '#Novel', title);
      return [
        p['hydra:property']['rdfs:range']?.['@id'],
        p['hydra:required'],
        p['hydra:readable'],
        p['hydra:writeable'],
      ];
    };
    expect(flags('pages')).toEqual(['xsd:integer', false, true, true]); // a default: not required
    expect(flags('rating')).toEqual(['xsd:float', false, true, false]); // not in the write groups
    expect(flags('secret')).toEqual(['xsd:string', false, false, true]); // not in the read groups
    expect(flags('internal')).toEqual([undefined, false, false, false]); // in no group at all
    expect(flags('tags')).toEqual(['xsd:array', false, true, true]);
    expect(flags('published')).toEqual(['xsd:boolean', false, true, true]);
    expect(flags('releasedAt')).toEqual(['xsd:dateTime', false, true, false]);
    expect(flags('publisher')).toEqual(['#Publisher', true, true, true]); // non-nullable without default
    expect(propertyOf(doc, '#Publisher', 'founded')['hydra:required']).toBe(true); // NotNull, in whatever group
    expect(propertyOf(doc, '#Publisher', 'founded')['hydra:property']['rdfs:range']).toEqual({ '@id': 'xsd:date' });
    expect(propertyOf(doc, '#Publisher', 'name')['hydra:property']['@id']).toBe('https://schema.org/name');
  });

  it('types relations as hydra:Link, to-one ones with owl:maxCardinality 1', async () => {
    const doc = await docs();
    expect(propertyOf(doc, '#Novel', 'publisher')['hydra:property']).toEqual({
      '@id': '#Novel/publisher',
      '@type': 'hydra:Link',
      'rdfs:label': 'publisher',
      'rdfs:domain': { '@id': '#Novel' },
      'rdfs:range': { '@id': '#Publisher' },
      'owl:maxCardinality': 1,
    });
    const novels = propertyOf(doc, '#Publisher', 'novels');
    expect(novels['hydra:property']).toMatchObject({ '@type': 'hydra:Link', 'rdfs:range': { '@id': '#Novel' } });
    expect(novels['hydra:property']).not.toHaveProperty('owl:maxCardinality');
    expect(novels['hydra:writeable']).toBe(false); // the inverse side
    // The subresource GET /api/publishers/{id}/novels is an operation of that link.
    expect(novels['hydra:property']['hydra:supportedOperation']).toEqual([
      expect.objectContaining({
        'hydra:method': 'GET',
        'hydra:title': 'api_publishers_novels_get_subresource',
        'hydra:returns': { '@id': 'hydra:Collection' },
      }),
    ]);
  });

  it('lists the item operations on the class, with method, title, label, what they expect and return', async () => {
    const doc = await docs();
    expect(classOf(doc, '#Novel')['hydra:supportedOperation']).toEqual([
      {
        '@type': ['hydra:Operation', 'schema:FindAction'],
        'hydra:method': 'GET',
        'hydra:title': 'api_novels_id_get',
        'rdfs:label': 'Retrieves a Novel resource.',
        'hydra:description': 'Retrieves a Novel resource.',
        'hydra:returns': { '@id': '#Novel' },
      },
      {
        '@type': 'hydra:Operation',
        'hydra:method': 'PATCH',
        'hydra:title': 'api_novels_id_patch',
        'rdfs:label': 'Updates the Novel resource.',
        'hydra:description': 'Updates the Novel resource.',
        'hydra:expects': { '@id': '#Novel' },
        'hydra:expectsHeader': [
          {
            'hydra:headerName': 'Content-Type',
            'hydra:possibleValue': ['application/merge-patch+json', 'application/ld+json', 'application/json'],
          },
        ],
        'hydra:returns': { '@id': '#Novel' },
      },
      {
        '@type': ['hydra:Operation', 'schema:DeleteAction'],
        'hydra:method': 'DELETE',
        'hydra:title': 'api_novels_id_delete',
        'rdfs:label': 'Removes the Novel resource.',
        'hydra:description': 'Removes the Novel resource.',
        'hydra:returns': { '@id': 'owl:Nothing' },
      },
    ]);
  });

  it('describes the entrypoint: one link per collection, whose range says what it holds, with the collection operations', async () => {
    const doc = await docs();
    const entrypoint = classOf(doc, '#Entrypoint');
    expect(entrypoint['hydra:supportedProperty'].map((p: Node) => p['hydra:property']['@id'])).toEqual([
      '#Entrypoint/novel',
      '#Entrypoint/publisher',
    ]);
    const novel = entrypoint['hydra:supportedProperty'][0];
    expect(novel).toMatchObject({
      '@type': 'hydra:SupportedProperty',
      'hydra:readable': true,
      'hydra:writeable': false,
    });
    expect(novel['hydra:property']).toMatchObject({
      '@type': 'hydra:Link',
      'rdfs:range': [
        { '@id': 'hydra:Collection' },
        {
          'owl:equivalentClass': {
            'owl:onProperty': { '@id': 'hydra:member' },
            'owl:allValuesFrom': { '@id': '#Novel' },
          },
        },
      ],
    });
    expect(
      novel['hydra:property']['hydra:supportedOperation'].map((o: Node) => [
        o['hydra:method'],
        o['hydra:title'],
        o['hydra:returns']['@id'],
        o['hydra:expects']?.['@id'],
      ]),
    ).toEqual([
      ['GET', 'api_novels_get_collection', 'hydra:Collection', undefined],
      ['POST', 'api_novels_post', '#Novel', '#Novel'],
    ]);
    // The entrypoint's own context maps each key to the same property.
    const context = await call(app(), {
      method: 'GET',
      url: '/api/contexts/Entrypoint',
      headers: { host: 'library.example:8443' },
    });
    expect(context.body['@context'].novel).toEqual({ '@id': 'Entrypoint/novel', '@type': '@id' });
  });

  it('describes the violation classes with the terms of the ConstraintViolationList context', async () => {
    const doc = await docs();
    const list = classOf(doc, '#ConstraintViolationList');
    expect(list['rdfs:subClassOf']).toEqual({ '@id': 'hydra:Error' });
    expect(list['hydra:supportedProperty'][0]['hydra:property']).toMatchObject({
      '@id': '#violations',
      'rdfs:range': { '@id': '#ConstraintViolation' },
    });
    // The context maps no term: each expands through `@vocab` (the documentation's `#`) to the property's `@id`.
    const context = (
      await call(app(), {
        method: 'GET',
        url: '/api/contexts/ConstraintViolationList',
        headers: { host: 'library.example:8443' },
      })
    ).body['@context'];
    expect(context['@vocab']).toBe(doc['@context']['@vocab']);
    for (const property of classOf(doc, '#ConstraintViolation')['hydra:supportedProperty']) {
      expect(context[property['hydra:title']]).toBeUndefined();
      expect(`#${property['hydra:title']}`).toBe(property['hydra:property']['@id']);
    }
  });

  it('answers 406 to a client that takes no JSON', async () => {
    const response = await call(app(), { method: 'GET', url: '/api/docs.jsonld', headers: { accept: 'text/plain' } });
    expect(response.status).toBe(406);
  });
});
