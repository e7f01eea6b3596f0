/**
 * A real client of the documents: `@api-platform/api-doc-parser`, the library API Platform Admin is built on, run
 * over HTTP against the bookshop listening on 127.0.0.1. Its Hydra parser (what Admin uses: entrypoint, Link header,
 * docs.jsonld expanded with jsonld.js) and its OpenAPI 3 parser both find every resource, field, relation and
 * operation.
 */
import {
  type Api,
  type Field,
  parseHydraDocumentation,
  parseOpenApi3Documentation,
  type Resource,
} from '@api-platform/api-doc-parser';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildBookshop } from '../src/app.js';

const XSD = 'http://www.w3.org/2001/XMLSchema#';

describe('@api-platform/api-doc-parser on the bookshop', () => {
  let app: FastifyInstance;
  let base = '';
  let hydra: Api;
  let openApi: Api;

  beforeAll(async () => {
    app = await buildBookshop({ database: 'sqlite::memory:', jwtSecret: 'a-test-secret-of-at-least-32-bytes!!' });
    base = await app.listen({ host: '127.0.0.1', port: 0 });
    hydra = (await parseHydraDocumentation(`${base}/api`)).api;
    openApi = (await parseOpenApi3Documentation(`${base}/api`)).api;
  });
  afterAll(async () => {
    await app?.close();
  });

  const resource = (api: Api, name: string): Resource => {
    const found = api.resources?.find((r) => r.name === name);
    if (!found) throw new Error(`No resource "${name}" in ${api.resources?.map((r) => r.name).join(', ')}`);
    return found;
  };
  const referenceName = (field: Field) =>
    typeof field.reference === 'object' && field.reference !== null ? field.reference.name : (field.reference ?? null);
  /** name → [type, required, reference, maxCardinality] */
  const fieldsOf = (r: Resource) =>
    Object.fromEntries(
      (r.fields ?? []).map((f) => [f.name, [f.type, f.required, referenceName(f), f.maxCardinality ?? null]]),
    );
  const collections = () =>
    app.resourceApi.metadata.resources.filter((r) => r.operations.some((o) => o.kind === 'getCollection'));

  describe('the Hydra parser (as API Platform Admin uses it)', () => {
    it('finds every collection of the entrypoint as a resource, with its URL and class', () => {
      expect(hydra.title).toBe('Bookshop API');
      expect(hydra.resources!.map((r) => r.name).sort()).toEqual(
        collections()
          .map((r) => r.plural)
          .sort(),
      );
      for (const declared of collections()) {
        expect(resource(hydra, declared.plural)).toMatchObject({
          url: `${base}${declared.collectionPath}`,
          id: `${base}/api/docs.jsonld#${declared.name}`,
          title: declared.name,
        });
      }
    });

    it('finds every field, relations referencing their resource, to-one relations with maxCardinality 1', () => {
      for (const declared of collections()) {
        const parsed = resource(hydra, declared.plural);
        expect(parsed.fields!.map((f) => f.name)).toEqual(declared.fields.map((f) => f.name));
        for (const field of declared.fields) {
          const found = parsed.fields!.find((f) => f.name === field.name)!;
          if (field.kind === 'scalar') {
            expect([declared.name, field.name, found.reference, found.embedded]).toEqual([
              declared.name,
              field.name,
              null,
              null,
            ]);
          } else {
            const target = app.resourceApi.metadata.resource(field.target);
            expect([declared.name, field.name, referenceName(found), found.maxCardinality ?? null]).toEqual([
              declared.name,
              field.name,
              target.plural,
              field.kind === 'toOne' ? 1 : null,
            ]);
          }
        }
      }
    });

    it('reads each field with its type and required flag', () => {
      expect(fieldsOf(resource(hydra, 'books'))).toEqual({
        title: ['string', true, null, null],
        author: ['string', true, 'authors', 1],
        cover: ['string', false, 'media_objects', 1],
      });
      expect(fieldsOf(resource(hydra, 'authors'))).toEqual({
        name: ['string', true, null, null],
        books: ['string', false, 'books', null],
      });
      expect(fieldsOf(resource(hydra, 'products'))).toEqual({
        name: ['string', true, null, null],
        price: ['float', true, null, null],
        createdAt: ['dateTime', false, null, null],
        category: ['string', false, 'categories', 1],
        brand: ['string', false, 'brands', 1],
      });
      const users = resource(hydra, 'users');
      expect(fieldsOf(users)).toMatchObject({
        email: ['string', true, null, null],
        plainPassword: ['string', true, null, null],
        roles: ['array', false, null, null],
      });
      // The password is written, never read.
      expect(users.readableFields!.map((f) => f.name)).not.toContain('plainPassword');
      expect(users.writableFields!.map((f) => f.name)).toContain('plainPassword');
      // Related items show by name: Author, Category and Brand names carry schema.org's IRI.
      for (const name of ['authors', 'categories', 'brands'])
        expect(resource(hydra, name).fields!.find((f) => f.name === 'name')!.id).toBe('https://schema.org/name');
      expect(resource(hydra, 'comments').readableFields!.map((f) => f.name)).toContain('createdAt');
      expect(resource(hydra, 'comments').writableFields!.map((f) => f.name)).not.toContain('createdAt');
    });

    it('finds every operation, the first edit being PUT', () => {
      for (const declared of collections()) {
        const parsed = resource(hydra, declared.plural);
        // The Hydra documentation lists custom operations on their class too (`GET /api/authors/{id}/stats` on Author).
        const expected = declared.operations.filter((o) => !o.subresource).map((o) => o.method);
        expect([declared.name, parsed.operations!.map((o) => o.method).sort()]).toEqual([
          declared.name,
          [...expected].sort(),
        ]);
      }
      expect(resource(hydra, 'books').operations!.map((o) => [o.type, o.method])).toEqual([
        ['list', 'GET'],
        ['create', 'POST'],
        ['show', 'GET'],
        ['edit', 'PUT'],
        ['edit', 'PATCH'],
        ['delete', 'DELETE'],
      ]);
    });

    it('reads the filters of a collection from its hydra:search', async () => {
      const books = resource(hydra, 'books');
      const parameters = await books.getParameters!();
      expect(parameters.map((p) => [p.variable, p.range, p.required])).toEqual(
        expect.arrayContaining([
          ['title', `${XSD}string`, false],
          ['order[title]', `${XSD}string`, false],
          ['author', `${base}/api/docs.jsonld#Author`, false],
        ]),
      );
    });
  });

  describe('the OpenAPI 3 parser', () => {
    it('finds every resource with an item path, and its operations', () => {
      expect(openApi.resources!.map((r) => r.name).sort()).toEqual(
        collections()
          .map((r) => r.plural)
          .sort(),
      );
      for (const declared of collections()) {
        const parsed = resource(openApi, declared.plural);
        expect(parsed.url).toBe(`${base}${declared.collectionPath}`);
        // The parser reads the collection and item paths only: custom operations (`/authors/{id}/stats`) are not among them.
        const expected = declared.operations
          .filter((o) => !o.subresource && o.customName === null)
          .map((o) => o.method);
        expect([declared.name, parsed.operations!.map((o) => o.method).sort()]).toEqual([
          declared.name,
          [...expected].sort(),
        ]);
      }
    });

    it('finds the fields with their type and required flag, and relations by name', () => {
      expect(fieldsOf(resource(openApi, 'books'))).toEqual({
        id: ['integer', true, null, null],
        title: ['string', true, null, null],
        author: ['iriReference', true, 'authors', 1],
        // The OpenAPI parser finds a relation's resource by the field's name only: `cover` names none.
        cover: ['iriReference', false, null, null],
      });
      expect(fieldsOf(resource(openApi, 'authors'))).toEqual({
        id: ['integer', true, null, null],
        name: ['string', true, null, null],
        books: ['array', false, 'books', null],
      });
      expect(fieldsOf(resource(openApi, 'products'))).toMatchObject({
        price: ['number', true, null, null],
        createdAt: ['dateTime', false, null, null],
        category: [expect.any(String), false, 'categories', 1],
      });
      expect(resource(openApi, 'books').writableFields!.map((f) => f.name)).toEqual(['title', 'author', 'cover']);
      expect(resource(openApi, 'comments').writableFields!.map((f) => f.name)).not.toContain('createdAt');
    });
  });
});
