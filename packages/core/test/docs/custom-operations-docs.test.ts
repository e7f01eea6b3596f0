/**
 * The API documents describe custom operations, shapes (input and output DTOs) and computed fields from the metadata,
 * as they describe the built-in operations: OpenAPI (paths, operationIds, URI variables, request bodies, responses,
 * component schemas), the Hydra documentation (operations on the resource's class, one class per shape) and the
 * JSON-LD contexts (`/api/contexts/<Shape>`). Resources without them are documented exactly as before.
 */
import { Validator } from '@seriousme/openapi-schema-validator';
import Ajv2020Module from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { FastifyInstance } from 'fastify';
import { describe, expect, inject, it } from 'vitest';
import {
  defineResource,
  defineShape,
  Length,
  NotBlank,
  type StateProcessor,
  type StateProvider,
} from '@resource-api/core';
import { buildTestApp, testDatabases } from '@resource-api/core/testing';
import { call } from '../helpers.js';

const Ajv2020 = ((Ajv2020Module as unknown as { default?: unknown }).default ??
  Ajv2020Module) as typeof Ajv2020Module.default;
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as unknown as (
  ajv: unknown,
) => void;

// biome-ignore lint/suspicious/noExplicitAny: the generated document, JSON walked freely by the assertions
type Doc = any;

const AuthorStats = defineShape({
  name: 'AuthorStats',
  description: 'What an author wrote.',
  fields: {
    articleCount: { type: 'integer', description: 'How many articles.' },
    latestTitle: { type: 'string', nullable: true },
  },
});
const Retitle = defineShape({
  name: 'Retitle',
  fields: { title: { type: 'string', constraints: [NotBlank(), Length({ max: 80 })] } },
});

const stats: StateProvider = {
  async provide(context) {
    if (!(await context.db('author').where('id', Number(context.uriVariables.id)).first())) return null;
    const rows = await context
      .db('article')
      .where('author_id', Number(context.uriVariables.id))
      .orderBy('id', 'desc')
      .select('title');
    return { articleCount: rows.length, latestTitle: rows[0]?.title ?? null };
  },
};
const publish: StateProcessor = { process: (_data, context, next) => next({ ...context.previous!, published: true }) };
const retitle: StateProcessor = { process: (data, context, next) => next({ ...context.previous!, title: data.title }) };
const archive: StateProcessor = { process: async () => undefined };
const bySlug: StateProvider = {
  provide: async (context) => {
    const row = await context
      .db('article')
      .whereRaw('lower(title) = ?', [String(context.uriVariables.slug).replaceAll('-', ' ')])
      .first();
    return row ? { id: row.id, title: row.title, published: Boolean(row.published), author: null } : null;
  },
};

const Author = defineResource({
  name: 'Author',
  fields: {
    name: { type: 'string', constraints: [NotBlank()] },
    nameLength: {
      type: 'integer',
      computed: (author) => String(author.name).length,
      description: 'Letters in the name.',
    },
    articles: { toMany: 'Article', mappedBy: 'author' },
  },
  operations: [
    'getCollection',
    'get',
    'post',
    'patch',
    { kind: 'get', name: 'stats', uriTemplate: '/authors/{id}/stats', output: AuthorStats, provider: stats },
  ],
});

const Article = defineResource({
  name: 'Article',
  filters: [{ type: 'search', properties: { title: 'ipartial' } }],
  fields: {
    title: { type: 'string', constraints: [NotBlank()] },
    published: { type: 'boolean', default: false },
    author: { toOne: 'Author', inversedBy: 'articles', nullable: true },
  },
  operations: [
    // A custom PATCH declared first: Hydra clients must still find the built-in one first.
    {
      kind: 'patch',
      name: 'archive',
      uriTemplate: '/articles/{id}/archive',
      input: false,
      output: false,
      processor: archive,
    },
    'getCollection',
    'get',
    'post',
    'put',
    'patch',
    'delete',
    {
      kind: 'post',
      name: 'publish',
      uriTemplate: '/articles/{id}/publish',
      input: false,
      processor: publish,
      security: "is_granted('ROLE_EDITOR')",
    },
    { kind: 'post', name: 'retitle', uriTemplate: '/articles/{id}/retitle', input: Retitle, processor: retitle },
    {
      kind: 'getCollection',
      name: 'published',
      uriTemplate: '/articles/published',
      description: 'The published articles.',
    },
    { kind: 'post', name: 'import', uriTemplate: '/articles/import' },
    { kind: 'get', name: 'bySlug', uriTemplate: '/articles/titled/{slug}', provider: bySlug },
  ],
});

/** A resource with nothing custom: documented exactly as without the others. */
const Tag = defineResource({ name: 'Tag', fields: { label: { type: 'string' } } });

const resources = [Author, Article, Tag];

async function withApp<T>(
  database: Parameters<typeof buildTestApp>[0]['database'],
  run: (app: FastifyInstance) => Promise<T>,
  list = resources,
): Promise<T> {
  const app = await buildTestApp({ database, resources: list });
  try {
    return await run(app);
  } finally {
    await app.close();
  }
}

const openApiOf = async (app: FastifyInstance): Promise<Doc> =>
  (await call(app, { method: 'GET', url: '/api/docs.json' })).body;
const hydraOf = async (app: FastifyInstance): Promise<Doc> =>
  (await call(app, { method: 'GET', url: '/api/docs.jsonld' })).body;
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

describe.each(testDatabases(inject('postgresUrl'), inject('mariadbUrl')))(
  'the documents of custom operations on $name',
  (database) => {
    describe('OpenAPI', () => {
      it('validates as OpenAPI 3.1 and documents every operation, custom ones included, at its path with its name as operationId', async () => {
        await withApp(database, async (app) => {
          const doc = await openApiOf(app);
          const result = await new Validator().validate(doc);
          expect(result.errors).toBeUndefined();
          const documented = Object.entries(doc.paths).flatMap(([path, item]) =>
            Object.keys(item as object).map((m) => `${m.toUpperCase()} /api${path} ${(item as Doc)[m].operationId}`),
          );
          const declared = app.resourceApi.metadata.resources.flatMap((r) =>
            r.operations.map((o) => `${o.method} ${o.uriTemplate} ${o.name}`),
          );
          expect(documented.sort()).toEqual(declared.sort());
          expect(documented).toEqual(
            expect.arrayContaining([
              'POST /api/articles/{id}/publish api_articles_id_publish_post',
              'POST /api/articles/{id}/retitle api_articles_id_retitle_post',
              'PATCH /api/articles/{id}/archive api_articles_id_archive_patch',
              'GET /api/articles/published api_articles_published_get',
              'POST /api/articles/import api_articles_import_post',
              'GET /api/articles/titled/{slug} api_articles_titled_slug_get',
              'GET /api/authors/{id}/stats api_authors_id_stats_get',
            ]),
          );
          expect(doc.paths['/articles/published'].get).toMatchObject({
            tags: ['Article'],
            summary: 'The published articles.',
            description: 'The published articles.',
          });
        });
      });

      it('gives each URI variable as a path parameter: id as the resource identifier, the others as strings', async () => {
        await withApp(database, async (app) => {
          const doc = await openApiOf(app);
          const id = {
            name: 'id',
            in: 'path',
            required: true,
            description: 'The Article identifier.',
            schema: { type: 'integer', minimum: 1 },
          };
          expect(doc.paths['/articles/{id}/publish'].post.parameters).toEqual([id]);
          expect(doc.paths['/articles/{id}/archive'].patch.parameters.map((p: Doc) => `${p.in}:${p.name}`)).toEqual([
            'path:id',
            'header:If-Match',
          ]);
          expect(doc.paths['/authors/{id}/stats'].get.parameters[0]).toEqual({
            ...id,
            description: 'The Author identifier.',
          });
          expect(doc.paths['/articles/titled/{slug}'].get.parameters[0]).toEqual({
            name: 'slug',
            in: 'path',
            required: true,
            description: 'The "slug" variable of the bySlug operation.',
            schema: { type: 'string' },
          });
          expect(doc.paths['/articles/import'].post.parameters).toBeUndefined();
        });
      });

      it('gives a request body of the resource for its write mode or of the input shape, and none when the operation reads no body', async () => {
        await withApp(database, async (app) => {
          const doc = await openApiOf(app);
          expect(doc.paths['/articles/{id}/publish'].post.requestBody).toBeUndefined();
          expect(doc.paths['/articles/{id}/archive'].patch.requestBody).toBeUndefined();
          expect(doc.paths['/articles/import'].post.requestBody).toEqual({
            required: true,
            description: 'The new Article resource.',
            content: {
              'application/ld+json': { schema: ref('Article.create') },
              'application/json': { schema: ref('Article.create') },
            },
          });
          expect(doc.paths['/articles/{id}/retitle'].post.requestBody).toEqual({
            required: true,
            description: 'The Retitle the "retitle" operation reads.',
            content: {
              'application/ld+json': { schema: ref('Retitle') },
              'application/json': { schema: ref('Retitle') },
            },
          });
          expect(doc.components.schemas.Retitle).toEqual({
            type: 'object',
            properties: { title: { type: 'string', writeOnly: true } },
            required: ['title'],
          });
        });
      });

      it('answers with the operation status and the resource, the output shape or no body, and the error responses its kind can give', async () => {
        await withApp(database, async (app) => {
          const doc = await openApiOf(app);
          const codes = (path: string, method: string) => Object.keys(doc.paths[path][method].responses);
          const publish = doc.paths['/articles/{id}/publish'].post.responses;
          expect(publish['200']).toEqual({
            description: 'Article resource.',
            content: {
              'application/ld+json': { schema: ref('Article.jsonld') },
              'application/json': { schema: ref('Article') },
            },
          });
          expect(codes('/articles/{id}/publish', 'post')).toEqual(['200', '400', '401', '403', '404', '406']);
          expect(doc.paths['/articles/{id}/publish'].post.security).toEqual([{ JWT: [] }]);
          expect(codes('/articles/{id}/retitle', 'post')).toEqual(['200', '400', '404', '406', '415']);
          expect(doc.paths['/articles/{id}/archive'].patch.responses['204']).toEqual({
            description: 'The "archive" operation succeeded; no content.',
          });
          expect(codes('/articles/{id}/archive', 'patch')).toEqual(['204', '400', '404', '406', '412']);
          const imported = doc.paths['/articles/import'].post.responses;
          expect(imported['201'].content['application/ld+json'].schema).toEqual(ref('Article.jsonld'));
          expect(imported['201'].headers.Location).toBeDefined();
          expect(codes('/articles/import', 'post')).toEqual(['201', '400', '406', '415']);
          const stats = doc.paths['/authors/{id}/stats'].get.responses;
          expect(stats['200'].content).toEqual({
            'application/ld+json': { schema: ref('AuthorStats.jsonld') },
            'application/json': { schema: ref('AuthorStats') },
          });
          expect(stats['200'].headers?.Location).toBeUndefined();
          expect(codes('/authors/{id}/stats', 'get')).toEqual(['200', '304', '404', '406']);
          expect(codes('/articles/titled/{slug}', 'get')).toEqual(['200', '304', '404', '406']);
        });
      });

      it('gives the shapes their own component schemas, without id, and computed fields read-only in read schemas and never in write schemas', async () => {
        await withApp(database, async (app) => {
          const {
            components: { schemas },
          } = await openApiOf(app);
          expect(schemas['AuthorStats.jsonld']).toEqual({
            type: 'object',
            description: 'What an author wrote.',
            properties: {
              '@context': { readOnly: true, oneOf: [{ type: 'string' }, { type: 'object' }] },
              '@id': { type: 'string', format: 'iri-reference', readOnly: true },
              '@type': { type: 'string', const: 'AuthorStats', readOnly: true },
              articleCount: {
                type: 'integer',
                minimum: -2_147_483_648,
                maximum: 2_147_483_647,
                description: 'How many articles.',
                readOnly: true,
              },
              latestTitle: { type: ['string', 'null'], readOnly: true },
            },
            required: ['@id', '@type', 'articleCount'],
          });
          expect(Object.keys(schemas.AuthorStats.properties)).toEqual(['articleCount', 'latestTitle']);
          expect(schemas['Author.jsonld'].properties.nameLength).toEqual({
            type: 'integer',
            minimum: -2_147_483_648,
            maximum: 2_147_483_647,
            description: 'Letters in the name.',
            readOnly: true,
          });
          expect(schemas['Author.jsonld'].required).not.toContain('nameLength');
          expect(schemas.Author.properties.nameLength.readOnly).toBe(true);
          for (const name of ['Author.create', 'Author.update'])
            expect(Object.keys(schemas[name].properties)).toEqual(['name']);
        });
      });

      it('gives custom collection reads the collection schema with the filters and pagination parameters of the built-in one', async () => {
        await withApp(database, async (app) => {
          const doc = await openApiOf(app);
          const custom = doc.paths['/articles/published'].get;
          const builtin = doc.paths['/articles'].get;
          expect(custom.parameters).toEqual(builtin.parameters);
          expect(custom.parameters.map((p: Doc) => `${p.in}:${p.name}`)).toEqual([
            'query:title',
            'query:title[]',
            'query:page',
            'query:itemsPerPage',
            'query:pagination',
            'header:If-None-Match',
          ]);
          expect(custom.responses['200'].content).toEqual(builtin.responses['200'].content);
          expect(Object.keys(custom.responses)).toEqual(['200', '304', '400', '406']);
        });
      });

      it('documents the bodies the custom operations really send', async () => {
        await withApp(database, async (app) => {
          const doc = await openApiOf(app);
          const ajv = new Ajv2020({ strict: false, allErrors: true });
          addFormats(ajv);
          ajv.addFormat('iri-reference', true);
          ajv.addSchema({ ...doc, $id: 'openapi' });
          const check = (path: string, method: string, status: string, type: string, body: unknown) => {
            const response = doc.paths[path][method].responses[status];
            const resolved = response.$ref ? doc.components.responses[response.$ref.split('/').pop()] : response;
            const validate = ajv.compile(
              JSON.parse(
                JSON.stringify(resolved.content[type].schema).replaceAll('"#/components/', '"openapi#/components/'),
              ),
            );
            return validate(body) ? 'valid' : validate.errors;
          };
          const author = await call(app, { method: 'POST', url: '/api/authors', payload: { name: 'Ursula' } });
          expect(author.status).toBe(201);
          const read = await call(app, { method: 'GET', url: '/api/authors/1' });
          expect(read.body.nameLength).toBe(6);
          expect(check('/authors/{id}', 'get', '200', 'application/ld+json', read.body)).toBe('valid');
          expect(check('/authors', 'post', '201', 'application/ld+json', author.body)).toBe('valid');
          const imported = await call(app, {
            method: 'POST',
            url: '/api/articles/import',
            payload: { title: 'The Dispossessed', author: '/api/authors/1' },
          });
          expect(imported.status).toBe(201);
          expect(check('/articles/import', 'post', '201', 'application/ld+json', imported.body)).toBe('valid');
          for (const accept of ['application/ld+json', 'application/json']) {
            const stats = await call(app, { method: 'GET', url: '/api/authors/1/stats', headers: { accept } });
            expect(stats.status).toBe(200);
            expect(check('/authors/{id}/stats', 'get', '200', accept, stats.body)).toBe('valid');
            const published = await call(app, { method: 'GET', url: '/api/articles/published', headers: { accept } });
            expect(check('/articles/published', 'get', '200', accept, published.body)).toBe('valid');
            const retitled = await call(app, {
              method: 'POST',
              url: '/api/articles/1/retitle',
              headers: { accept },
              payload: { title: 'The Lathe of Heaven' },
            });
            expect(retitled.status).toBe(200);
            expect(check('/articles/{id}/retitle', 'post', '200', accept, retitled.body)).toBe('valid');
            const bySlug = await call(app, {
              method: 'GET',
              url: '/api/articles/titled/the-lathe-of-heaven',
              headers: { accept },
            });
            expect(check('/articles/titled/{slug}', 'get', '200', accept, bySlug.body)).toBe('valid');
          }
          const invalid = await call(app, { method: 'POST', url: '/api/articles/1/retitle', payload: { title: '' } });
          expect(invalid.status).toBe(400);
          expect(check('/articles/{id}/retitle', 'post', '400', 'application/ld+json', invalid.body)).toBe('valid');
          const missing = await call(app, { method: 'GET', url: '/api/authors/9/stats' });
          expect(missing.status).toBe(404);
          expect(check('/authors/{id}/stats', 'get', '404', 'application/ld+json', missing.body)).toBe('valid');
          const denied = await call(app, { method: 'POST', url: '/api/articles/1/publish' });
          expect(denied.status).toBe(401);
          expect(check('/articles/{id}/publish', 'post', '401', 'application/ld+json', denied.body)).toBe('valid');
          const archived = await call(app, {
            method: 'PATCH',
            url: '/api/articles/1/archive',
            headers: { 'content-type': 'application/merge-patch+json' },
          });
          expect(archived.status).toBe(204);
          // A body that breaks the shape's schema is caught: the check can fail.
          expect(
            check('/authors/{id}/stats', 'get', '200', 'application/ld+json', {
              '@id': '/api/authors/1/stats',
              '@type': 'AuthorStats',
              articleCount: 'two',
            }),
          ).not.toBe('valid');
        });
      });
    });

    describe('the Hydra documentation', () => {
      const classOf = (doc: Doc, id: string) => doc['hydra:supportedClass'].find((c: Doc) => c['@id'] === id);
      const operationOf = (doc: Doc, classId: string, title: string) =>
        classOf(doc, classId)['hydra:supportedOperation'].find((o: Doc) => o['hydra:title'] === title);

      it('lists each custom operation on its resource class with its method, title, description, what it expects and what it returns', async () => {
        await withApp(database, async (app) => {
          const doc = await hydraOf(app);
          const describe = (name: string) => `The "${name}" operation of the Article resource.`;
          expect(operationOf(doc, '#Article', 'api_articles_id_publish_post')).toEqual({
            '@type': 'hydra:Operation',
            'hydra:method': 'POST',
            'hydra:title': 'api_articles_id_publish_post',
            'rdfs:label': describe('publish'),
            'hydra:description': describe('publish'),
            // A write without a body says it expects nothing.
            'hydra:expects': { '@id': 'owl:Nothing' },
            'hydra:returns': { '@id': '#Article' },
          });
          expect(operationOf(doc, '#Article', 'api_articles_id_retitle_post')).toMatchObject({
            'hydra:method': 'POST',
            'hydra:expects': { '@id': '#Retitle' },
            'hydra:returns': { '@id': '#Article' },
          });
          const archive = operationOf(doc, '#Article', 'api_articles_id_archive_patch');
          expect(archive).toMatchObject({
            '@type': 'hydra:Operation',
            'hydra:method': 'PATCH',
            'hydra:returns': { '@id': 'owl:Nothing' },
          });
          expect(archive['hydra:expects']).toEqual({ '@id': 'owl:Nothing' });
          expect(archive['hydra:expectsHeader']).toBeUndefined();
          expect(operationOf(doc, '#Article', 'api_articles_import_post')).toMatchObject({
            '@type': ['hydra:Operation', 'schema:CreateAction'],
            'hydra:expects': { '@id': '#Article' },
            'hydra:returns': { '@id': '#Article' },
          });
          expect(operationOf(doc, '#Article', 'api_articles_published_get')).toMatchObject({
            '@type': ['hydra:Operation', 'schema:FindAction'],
            'hydra:method': 'GET',
            'hydra:description': 'The published articles.',
            'hydra:returns': { '@id': 'hydra:Collection' },
          });
          expect(operationOf(doc, '#Author', 'api_authors_id_stats_get')).toMatchObject({
            '@type': 'hydra:Operation',
            'hydra:method': 'GET',
            'hydra:returns': { '@id': '#AuthorStats' },
          });
        });
      });

      it('keeps the built-in operations first on the class and the built-in collection operations alone on the entrypoint', async () => {
        await withApp(database, async (app) => {
          const doc = await hydraOf(app);
          expect(
            classOf(doc, '#Article')['hydra:supportedOperation'].map(
              (o: Doc) => `${o['hydra:method']} ${o['hydra:title']}`,
            ),
          ).toEqual([
            'GET api_articles_id_get',
            'PUT api_articles_id_put',
            'PATCH api_articles_id_patch',
            'DELETE api_articles_id_delete',
            'PATCH api_articles_id_archive_patch',
            'POST api_articles_id_publish_post',
            'POST api_articles_id_retitle_post',
            'GET api_articles_published_get',
            'POST api_articles_import_post',
            'GET api_articles_titled_slug_get',
          ]);
          const link = classOf(doc, '#Entrypoint')['hydra:supportedProperty'].find(
            (p: Doc) => p['hydra:property']['@id'] === '#Entrypoint/article',
          );
          expect(link['hydra:property']['hydra:supportedOperation'].map((o: Doc) => o['hydra:title'])).toEqual([
            'api_articles_get_collection',
            'api_articles_post',
          ]);
        });
      });

      it('describes each shape as a class with its fields as supported properties, readable when sent and writeable when read', async () => {
        await withApp(database, async (app) => {
          const doc = await hydraOf(app);
          const stats = classOf(doc, '#AuthorStats');
          expect(stats).toMatchObject({
            '@type': 'hydra:Class',
            'rdfs:label': 'AuthorStats',
            'hydra:title': 'AuthorStats',
            'hydra:description': 'What an author wrote.',
          });
          expect(stats['hydra:supportedProperty']).toEqual([
            {
              '@type': 'hydra:SupportedProperty',
              'hydra:property': {
                '@id': '#AuthorStats/articleCount',
                '@type': 'rdf:Property',
                'rdfs:label': 'articleCount',
                'rdfs:domain': { '@id': '#AuthorStats' },
                'rdfs:range': { '@id': 'xsd:integer' },
              },
              'hydra:title': 'articleCount',
              'hydra:required': true,
              'hydra:readable': true,
              'hydra:writeable': false,
              'hydra:description': 'How many articles.',
            },
            {
              '@type': 'hydra:SupportedProperty',
              'hydra:property': {
                '@id': '#AuthorStats/latestTitle',
                '@type': 'rdf:Property',
                'rdfs:label': 'latestTitle',
                'rdfs:domain': { '@id': '#AuthorStats' },
                'rdfs:range': { '@id': 'xsd:string' },
              },
              'hydra:title': 'latestTitle',
              'hydra:required': false,
              'hydra:readable': true,
              'hydra:writeable': false,
            },
          ]);
          expect(
            classOf(doc, '#Retitle')['hydra:supportedProperty'].map((p: Doc) => [
              p['hydra:title'],
              p['hydra:required'],
              p['hydra:readable'],
              p['hydra:writeable'],
            ]),
          ).toEqual([['title', true, false, true]]);
          // Computed fields: readable, never writeable.
          const nameLength = classOf(doc, '#Author')['hydra:supportedProperty'].find(
            (p: Doc) => p['hydra:title'] === 'nameLength',
          );
          expect([nameLength['hydra:readable'], nameLength['hydra:writeable'], nameLength['hydra:required']]).toEqual([
            true,
            false,
            false,
          ]);
          // Shapes are no collections: the entrypoint does not list them.
          const entrypoint = classOf(doc, '#Entrypoint')['hydra:supportedProperty'].map(
            (p: Doc) => p['hydra:property']['@id'],
          );
          expect(entrypoint).toEqual(['#Entrypoint/article', '#Entrypoint/author', '#Entrypoint/tag']);
        });
      });
    });

    describe('the JSON-LD contexts', () => {
      it('resolves the context of every shape, with its fields mapped, and the output of a custom operation points at it', async () => {
        await withApp(database, async (app) => {
          for (const shape of app.resourceApi.metadata.shapes) {
            const context = await call(app, {
              method: 'GET',
              url: `/api/contexts/${shape.name}`,
              headers: { host: 'books.example' },
            });
            expect(context.status).toBe(200);
            const expected: Record<string, unknown> = {
              '@vocab': 'http://books.example/api/docs.jsonld#',
              hydra: 'http://www.w3.org/ns/hydra/core#',
            };
            for (const field of shape.fields) expected[field.name] = `${shape.name}/${field.name}`;
            expect(context.body).toEqual({ '@context': expected });
          }
          expect(app.resourceApi.metadata.shapes.map((s) => s.name)).toEqual(['AuthorStats', 'Retitle']);
          await call(app, { method: 'POST', url: '/api/authors', payload: { name: 'Ursula' } });
          const stats = await call(app, { method: 'GET', url: '/api/authors/1/stats' });
          expect(stats.body).toEqual({
            '@context': '/api/contexts/AuthorStats',
            '@id': '/api/authors/1/stats',
            '@type': 'AuthorStats',
            articleCount: 0,
          });
          expect((await call(app, { method: 'GET', url: stats.body['@context'] })).status).toBe(200);
          expect((await call(app, { method: 'GET', url: '/api/contexts/Nothing' })).status).toBe(404);
        });
      });

      it('maps computed fields in the context of their resource', async () => {
        await withApp(database, async (app) => {
          const context = await call(app, { method: 'GET', url: '/api/contexts/Author' });
          expect(context.body['@context']).toMatchObject({
            name: 'Author/name',
            nameLength: 'Author/nameLength',
            articles: { '@id': 'Author/articles', '@type': '@id' },
          });
        });
      });
    });

    describe('resources without custom operations, shapes or computed fields', () => {
      it('are documented exactly as in an API without any', async () => {
        const [alone, beside] = [
          await withApp(database, async (app) => [await openApiOf(app), await hydraOf(app)], [Tag]),
          await withApp(database, async (app) => [await openApiOf(app), await hydraOf(app)]),
        ];
        for (const path of ['/tags', '/tags/{id}']) expect(beside[0].paths[path]).toEqual(alone[0].paths[path]);
        for (const name of Object.keys(alone[0].components.schemas))
          expect([name, beside[0].components.schemas[name]]).toEqual([name, alone[0].components.schemas[name]]);
        const tagClass = (doc: Doc) => doc['hydra:supportedClass'].find((c: Doc) => c['@id'] === '#Tag');
        expect(tagClass(beside[1])).toEqual(tagClass(alone[1]));
        const tagLink = (doc: Doc) =>
          doc['hydra:supportedClass']
            .find((c: Doc) => c['@id'] === '#Entrypoint')
            ['hydra:supportedProperty'].find((p: Doc) => p['hydra:title'] === 'The collection of Tag resources');
        expect(tagLink(beside[1])).toEqual(tagLink(alone[1]));
      });
    });
  },
);
