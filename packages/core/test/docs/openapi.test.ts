/**
 * The OpenAPI 3.1 document, read over HTTP from a real Fastify instance: valid for a standard validator (JSON and
 * YAML), one operation per route and no other (checked against the routes themselves), parameters, schemas per
 * serialization groups, security and error responses; and the bodies the API really sends validate against the
 * schemas it documents, on SQLite and PostgreSQL.
 */
import { Validator } from '@seriousme/openapi-schema-validator';
import Ajv2020Module from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { describe, expect, inject, it } from 'vitest';
import { defineResource, NotBlank } from '@resource-api/core';
import { testDatabases } from '@resource-api/core/testing';
import { call, useApp } from '../helpers.js';

const Ajv2020 = ((Ajv2020Module as unknown as { default?: unknown }).default ??
  Ajv2020Module) as typeof Ajv2020Module.default;
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as unknown as (
  ajv: unknown,
) => void;

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
    novels: { toMany: 'Novel', mappedBy: 'publisher', subresource: true },
  },
});

const Novel = defineResource({
  name: 'Novel',
  normalizationGroups: ['novel:read'],
  denormalizationGroups: ['novel:write'],
  filters: [
    { type: 'search', properties: { title: 'ipartial' } },
    { type: 'order', properties: ['title'] },
  ],
  operations: [
    { kind: 'getCollection', paginationClientPartial: true },
    'get',
    { kind: 'post', security: "is_granted('ROLE_ADMIN')" },
    'patch',
    'delete',
  ],
  fields: {
    title: {
      type: 'string',
      groups: ['novel:read', 'novel:write'],
      constraints: [NotBlank()],
      description: 'The title.',
    },
    isbn: { type: 'string', nullable: true, immutable: true, groups: ['novel:read', 'novel:write'] },
    notes: { type: 'text', nullable: true },
    pages: { type: 'integer', default: 100, groups: ['novel:read', 'novel:write'] },
    publisher: { toOne: 'Publisher', inversedBy: 'novels', nullable: true, groups: ['novel:read', 'novel:write'] },
  },
});

const Ticket = defineResource({
  name: 'Ticket',
  operations: [
    {
      kind: 'getCollection',
      paginationViaCursor: { direction: 'desc' },
      paginationClientEnabled: false,
      paginationClientItemsPerPage: false,
    },
    'get',
  ],
  fields: { code: { type: 'string' } },
});

const Archive = defineResource({
  name: 'Archive',
  operations: [{ kind: 'getCollection', paginationEnabled: false, paginationClientEnabled: false }, 'put'],
  fields: { label: { type: 'string' } },
});

const resources = [Publisher, Novel, Ticket, Archive];
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;
// biome-ignore lint/suspicious/noExplicitAny: the generated document, JSON walked freely by the assertions
type Doc = any;

describe('the OpenAPI document', () => {
  const [sqlite] = testDatabases(undefined);
  const app = useApp(sqlite!, {
    resources,
    documentation: { title: 'Library', description: 'Books and more.', version: '2.1.0' },
  });
  const openApi = async (): Promise<Doc> => (await call(app(), { method: 'GET', url: '/api/docs.json' })).body;

  it('validates as OpenAPI 3.1, in JSON and in YAML, with the same content', async () => {
    const json = await call(app(), { method: 'GET', url: '/api/docs.json' });
    expect(json.status).toBe(200);
    expect(json.headers['content-type']).toBe('application/json; charset=utf-8');
    const validator = new Validator();
    const result = await validator.validate(json.body);
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');

    const yaml = await call(app(), { method: 'GET', url: '/api/docs.yaml' });
    expect(yaml.headers['content-type']).toBe('application/vnd.openapi+yaml; charset=utf-8');
    const fromYaml = new Validator();
    expect((await fromYaml.validate(yaml.text)).valid).toBe(true);
    expect(fromYaml.specification).toEqual(json.body);
  });

  it('is what Accept: application/vnd.openapi+json gets on /api and /api/docs', async () => {
    const doc = await openApi();
    for (const url of ['/api', '/api/docs', '/api/docs.json']) {
      const response = await call(app(), { method: 'GET', url, headers: { accept: 'application/vnd.openapi+json' } });
      expect(response.headers['content-type']).toBe('application/vnd.openapi+json; charset=utf-8');
      expect(response.body).toEqual(doc);
    }
    const yaml = await call(app(), {
      method: 'GET',
      url: '/api/docs',
      headers: { accept: 'application/vnd.openapi+yaml' },
    });
    expect(yaml.text).toContain('openapi: 3.1.0');
  });

  it('takes its info from the documentation option and puts the paths under the prefix as server', async () => {
    const doc = await openApi();
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info).toEqual({ title: 'Library', description: 'Books and more.', version: '2.1.0' });
    expect(doc.servers).toEqual([{ url: '/api', description: 'This API' }]);
    expect(doc.tags).toContainEqual({ name: 'Publisher', description: 'A publishing house.' });
  });

  it('documents every operation at its path, with its stable id, and nothing else', async () => {
    const doc = await openApi();
    const documented = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.keys(item as object).map((m) => `${m.toUpperCase()} /api${path} ${(item as Doc)[m].operationId}`),
    );
    const declared = app().resourceApi.metadata.resources.flatMap((r) =>
      r.operations.map((o) => `${o.method} ${o.uriTemplate} ${o.name}`),
    );
    expect(documented.sort()).toEqual(declared.sort());
    expect(documented).toContain('GET /api/publishers/{id}/novels api_publishers_novels_get_subresource');
    expect(documented).not.toContain('PUT /api/novels/{id} api_novels_id_put');
  });

  it('documents exactly the methods the routes answer: the others are 405', async () => {
    const doc = await openApi();
    for (const [path, item] of Object.entries(doc.paths)) {
      const url = `/api${path.replace(/\{\w+\}/g, '1')}`;
      for (const method of METHODS) {
        const response = await call(app(), {
          method: method.toUpperCase() as 'GET',
          url,
          payload: method === 'get' || method === 'delete' ? undefined : {},
        });
        if ((item as Doc)[method]) expect([url, method, response.status]).not.toEqual([url, method, 405]);
        else expect([url, method, response.status]).toEqual([url, method, 405]);
      }
    }
  });

  it('lists filters and the pagination parameters each collection allows', async () => {
    const doc = await openApi();
    const names = (path: string, method = 'get') =>
      ((doc.paths[path][method].parameters ?? []) as { name: string; in: string }[]).map((p) => `${p.in}:${p.name}`);
    expect(names('/novels')).toEqual([
      'query:title',
      'query:title[]',
      'query:order[title]',
      'query:page',
      'query:itemsPerPage',
      'query:pagination',
      'query:partial',
      'header:If-None-Match',
    ]);
    expect(names('/publishers/{id}/novels')).toEqual([
      'path:id',
      'query:title',
      'query:title[]',
      'query:order[title]',
      'query:page',
      'query:itemsPerPage',
      'query:pagination',
      'query:partial',
      'header:If-None-Match',
    ]);
    expect(names('/tickets')).toEqual(['query:id[gt]', 'query:id[lt]', 'header:If-None-Match']);
    expect(names('/archives')).toEqual(['header:If-None-Match']);
    expect(names('/novels/{id}', 'patch')).toEqual(['path:id', 'header:If-Match']);
    const novels = doc.paths['/novels'].get.parameters as Doc[];
    expect(novels.find((p) => p.name === 'title[]')).toMatchObject({
      required: false,
      schema: { type: 'array', items: { type: 'string' } },
      style: 'form',
      explode: true,
    });
    expect(novels.find((p) => p.name === 'order[title]')).toMatchObject({
      schema: { type: 'string', enum: ['asc', 'desc'] },
    });
    expect(novels.find((p) => p.name === 'itemsPerPage')).toMatchObject({
      schema: { type: 'integer', minimum: 0, default: 10 },
    });
    expect(doc.paths['/publishers/{id}/novels'].get.parameters[0]).toEqual({
      name: 'id',
      in: 'path',
      required: true,
      description: 'The Publisher identifier.',
      schema: { type: 'integer', minimum: 1 },
    });
  });

  it('names the schemas after the format and groups, and follows the read and write groups', async () => {
    const doc = await openApi();
    const schemas = doc.components.schemas;
    const novels = doc.paths['/novels'];
    expect(novels.get.responses['200'].content['application/json'].schema).toEqual({
      type: 'array',
      items: { $ref: '#/components/schemas/Novel-novel.read' },
    });
    expect(
      novels.get.responses['200'].content['application/ld+json'].schema.allOf[1].properties['hydra:member'].items,
    ).toEqual({ $ref: '#/components/schemas/Novel.jsonld-novel.read' });
    expect(novels.post.requestBody.content['application/ld+json'].schema).toEqual({
      $ref: '#/components/schemas/Novel.create-novel.write',
    });
    expect(doc.paths['/novels/{id}'].patch.requestBody.content).toEqual({
      'application/merge-patch+json': { schema: { $ref: '#/components/schemas/Novel.update-novel.write' } },
      'application/ld+json': { schema: { $ref: '#/components/schemas/Novel.update-novel.write' } },
      'application/json': { schema: { $ref: '#/components/schemas/Novel.update-novel.write' } },
    });

    const read = schemas['Novel.jsonld-novel.read'];
    expect(Object.keys(read.properties)).toEqual([
      '@context',
      '@id',
      '@type',
      'id',
      'title',
      'isbn',
      'pages',
      'publisher',
    ]);
    expect(read.required).toEqual(['@id', '@type', 'id', 'title']);
    expect(read.properties.title).toEqual({ type: 'string', description: 'The title.' });
    expect(read.properties['@type']).toEqual({ type: 'string', const: 'Novel', readOnly: true });
    // The read groups reach Publisher.name: the publisher is embedded, and may be null.
    expect(read.properties.publisher).toEqual({
      anyOf: [{ $ref: '#/components/schemas/Publisher.jsonld-novel.read' }, { type: 'null' }],
    });
    expect(Object.keys(schemas['Publisher.jsonld-novel.read'].properties)).toEqual([
      '@context',
      '@id',
      '@type',
      'id',
      'name',
    ]);
    expect(Object.keys(schemas['Novel-novel.read'].properties)).toEqual(['id', 'title', 'isbn', 'pages', 'publisher']);
    // Without groups, relations are IRIs.
    expect(schemas['Publisher.jsonld'].properties.novels).toEqual({
      type: 'array',
      items: { type: 'string', format: 'iri-reference', example: '/api/novels/1' },
      readOnly: true,
    });

    expect(Object.keys(schemas['Novel.create-novel.write'].properties)).toEqual([
      'title',
      'isbn',
      'pages',
      'publisher',
    ]);
    expect(schemas['Novel.create-novel.write'].required).toEqual(['title']);
    expect(Object.keys(schemas['Novel.update-novel.write'].properties)).toEqual(['title', 'pages', 'publisher']);
    expect(schemas['Novel.update-novel.write'].required).toBeUndefined();
  });

  it('puts the bearer JWT scheme and 401/403 on the operations with an access rule only', async () => {
    const doc = await openApi();
    expect(doc.components.securitySchemes).toEqual({
      JWT: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: expect.any(String) },
    });
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(item as Doc) as [string, Doc][]) {
        const guarded = path === '/novels' && method === 'post';
        expect([path, method, operation.security]).toEqual([path, method, guarded ? [{ JWT: [] }] : undefined]);
        expect([path, method, '401' in operation.responses, '403' in operation.responses]).toEqual([
          path,
          method,
          guarded,
          guarded,
        ]);
      }
    }
  });

  it('lists the errors each operation can answer, with their schemas', async () => {
    const doc = await openApi();
    const codes = (path: string, method: string) => Object.keys(doc.paths[path][method].responses);
    expect(codes('/novels', 'get')).toEqual(['200', '304', '400', '406']);
    expect(codes('/novels', 'post')).toEqual(['201', '400', '401', '403', '406', '415']);
    expect(codes('/novels/{id}', 'get')).toEqual(['200', '304', '404', '406']);
    expect(codes('/novels/{id}', 'patch')).toEqual(['200', '400', '404', '406', '412', '415']);
    expect(codes('/novels/{id}', 'delete')).toEqual(['204', '404', '406', '412']);
    expect(codes('/publishers/{id}', 'delete')).toEqual(['204', '404', '406', '409', '412']);
    expect(codes('/publishers/{id}/novels', 'get')).toEqual(['200', '304', '400', '404', '406']);
    expect(codes('/archives', 'get')).toEqual(['200', '304', '406']);
    expect(doc.paths['/novels'].post.responses['400']).toEqual({ $ref: '#/components/responses/InvalidInput' });
    expect(doc.components.responses.InvalidInput.content['application/ld+json'].schema.anyOf[0]).toEqual({
      $ref: '#/components/schemas/ConstraintViolationList.jsonld',
    });
    expect(doc.components.schemas['Error.jsonld'].properties['@type']).toEqual({
      type: 'string',
      const: 'hydra:Error',
      readOnly: true,
    });
  });

  it('is the same document on every request', async () => {
    expect(await openApi()).toEqual(await openApi());
  });
});

describe('the OpenAPI document changed by transformOpenApi', () => {
  const [sqlite] = testDatabases(undefined);
  const app = useApp(sqlite!, {
    resources,
    documentation: {
      transformOpenApi: (doc) => {
        doc.components.schemas['Novel.create-novel.write'].properties.title.examples = ['The Left Hand of Darkness'];
        doc.paths['/novels']!.get.description = 'Every novel, ten by ten.';
        return doc;
      },
    },
  });

  it('serves the changed document everywhere, still valid', async () => {
    const json = (await call(app(), { method: 'GET', url: '/api/docs.json' })).body;
    expect(json.components.schemas['Novel.create-novel.write'].properties.title.examples).toEqual([
      'The Left Hand of Darkness',
    ]);
    expect(json.paths['/novels'].get.description).toBe('Every novel, ten by ten.');
    expect((await new Validator().validate(json)).valid).toBe(true);
    expect((await call(app(), { method: 'GET', url: '/api/docs.yaml' })).text).toContain('- The Left Hand of Darkness');
    expect((await call(app(), { method: 'GET', url: '/api/docs/ui/static/swagger-initializer.js' })).text).toContain(
      'Every novel, ten by ten.',
    );
  });
});

describe.each(testDatabases(inject('postgresUrl'), inject('mariadbUrl')))(
  'responses match the documented schemas on $name',
  (database) => {
    const app = useApp(database, { resources });

    function validatorOf(doc: Doc) {
      const ajv = new Ajv2020({ strict: false, allErrors: true });
      addFormats(ajv);
      ajv.addFormat('iri-reference', true);
      ajv.addSchema({ ...doc, $id: 'openapi' });
      return (schema: Doc, body: unknown): unknown => {
        const rooted = JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"openapi#/components/'));
        const validate = ajv.compile(rooted);
        return validate(body) ? 'valid' : validate.errors;
      };
    }

    it('for items, collections, subresources and errors, in JSON-LD and JSON', async () => {
      const doc = (await call(app(), { method: 'GET', url: '/api/docs.json' })).body;
      const check = validatorOf(doc);
      const schemaOf = (path: string, method: string, status: string, type: string) => {
        const response = doc.paths[path][method].responses[status];
        const resolved = response.$ref ? doc.components.responses[response.$ref.split('/').pop()] : response;
        return resolved.content[type].schema;
      };
      const publisher = await call(app(), { method: 'POST', url: '/api/publishers', payload: { name: 'Gollancz' } });
      expect(publisher.status).toBe(201);
      expect(check(schemaOf('/publishers', 'post', '201', 'application/ld+json'), publisher.body)).toBe('valid');
      // The POST of novels has a rule: anonymous callers get 401, as documented.
      const denied = await call(app(), { method: 'POST', url: '/api/novels', payload: { title: 'Dune' } });
      expect(denied.status).toBe(401);
      expect(check(schemaOf('/novels', 'post', '401', 'application/ld+json'), denied.body)).toBe('valid');
      await app()
        .resourceApi.database.knex('novel')
        .insert({ title: 'Dune', pages: 412, publisher_id: publisher.body.id });

      for (const [type, accept] of [
        ['application/ld+json', 'application/ld+json'],
        ['application/json', 'application/json'],
      ] as const) {
        const collection = await call(app(), { method: 'GET', url: '/api/novels', headers: { accept } });
        expect(collection.status).toBe(200);
        expect(check(schemaOf('/novels', 'get', '200', type), collection.body)).toBe('valid');
        const item = await call(app(), { method: 'GET', url: '/api/novels/1', headers: { accept } });
        expect(check(schemaOf('/novels/{id}', 'get', '200', type), item.body)).toBe('valid');
        const sub = await call(app(), { method: 'GET', url: '/api/publishers/1/novels', headers: { accept } });
        expect(check(schemaOf('/publishers/{id}/novels', 'get', '200', type), sub.body)).toBe('valid');
        const patched = await call(app(), {
          method: 'PATCH',
          url: '/api/novels/1',
          headers: { accept, 'content-type': 'application/merge-patch+json' },
          payload: { pages: 500 },
        });
        expect(patched.status).toBe(200);
        expect(check(schemaOf('/novels/{id}', 'patch', '200', type), patched.body)).toBe('valid');
      }
      // A document that breaks its schema is caught: the check can fail.
      const item = (await call(app(), { method: 'GET', url: '/api/novels/1' })).body;
      expect(check(schemaOf('/novels/{id}', 'get', '200', 'application/ld+json'), { ...item, title: 42 })).not.toBe(
        'valid',
      );

      const errors = [
        [await call(app(), { method: 'GET', url: '/api/novels/99' }), '/novels/{id}', 'get', '404'],
        [await call(app(), { method: 'GET', url: '/api/novels?page=0' }), '/novels', 'get', '400'],
        [
          await call(app(), {
            method: 'PATCH',
            url: '/api/novels/1',
            headers: { 'content-type': 'application/merge-patch+json' },
            payload: { title: '' },
          }),
          '/novels/{id}',
          'patch',
          '400',
        ],
        [
          await call(app(), {
            method: 'PATCH',
            url: '/api/novels/1',
            headers: { 'content-type': 'text/plain' },
            payload: 'x',
          }),
          '/novels/{id}',
          'patch',
          '415',
        ],
        [await call(app(), { method: 'DELETE', url: '/api/publishers/1' }), '/publishers/{id}', 'delete', '409'],
      ] as const;
      for (const [response, path, method, status] of errors) {
        expect(String(response.status)).toBe(status);
        expect([
          path,
          method,
          status,
          check(schemaOf(path, method, status, 'application/ld+json'), response.body),
        ]).toEqual([path, method, status, 'valid']);
      }
      const plain = await call(app(), {
        method: 'GET',
        url: '/api/novels/99',
        headers: { accept: 'application/json' },
      });
      expect(check(schemaOf('/novels/{id}', 'get', '404', 'application/problem+json'), plain.body)).toBe('valid');
    });
  },
);
