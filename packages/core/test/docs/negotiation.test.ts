/**
 * Which document `GET /api` and `GET /api/docs` answer, by Accept: the JSON-LD entrypoint for `*\/*`, no Accept and
 * JSON-LD (what Hydra clients send), Swagger UI for browsers, OpenAPI for `application/vnd.openapi+json`; and the
 * Swagger UI files, served from @fastify/swagger-ui's own package.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { testDatabases } from '@resource-api/core/testing';
import { Author, Book } from '../fixtures.js';
import { call, useApp } from '../helpers.js';

const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';
const src = new URL('../../src/', import.meta.url).pathname;

describe('the documents of /api by Accept', () => {
  const [sqlite] = testDatabases(undefined);
  const app = useApp(sqlite!, { resources: [Author, Book], documentation: { title: 'Library <API>' } });
  const get = (url: string, accept?: string) =>
    call(app(), { method: 'GET', url, headers: accept === undefined ? {} : { accept } });

  it('answers the JSON-LD entrypoint to */*, to no Accept and to application/ld+json', async () => {
    for (const accept of ['*/*', undefined, 'application/ld+json', 'application/ld+json, text/html;q=0.5']) {
      const response = await get('/api', accept);
      expect([accept, response.headers['content-type']]).toEqual([accept, 'application/ld+json; charset=utf-8']);
      expect(response.body).toEqual({
        '@context': '/api/contexts/Entrypoint',
        '@id': '/api',
        '@type': 'Entrypoint',
        author: '/api/authors',
        book: '/api/books',
      });
      expect(response.headers.vary).toBe('Accept');
      expect(response.headers.link).toBe(
        '<http://localhost:80/api/docs.jsonld>; rel="http://www.w3.org/ns/hydra/core#apiDocumentation"',
      );
    }
    expect((await get('/api', 'application/json')).headers['content-type']).toBe('application/json; charset=utf-8');
  });

  it('answers Swagger UI to a browser on /api, /api/docs and /api/docs.html, its files served locally', async () => {
    for (const url of ['/api', '/api/docs', '/api/docs.html']) {
      const page = await get(url, BROWSER);
      expect([url, page.status, page.headers['content-type']]).toEqual([url, 200, 'text/html; charset=utf-8']);
      expect(page.text).toContain('<title>Library &lt;API&gt;</title>');
      const assets = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
      expect(assets).toContain('/api/docs/ui/static/swagger-ui-bundle.js');
      for (const asset of assets) {
        expect(asset.startsWith('/api/docs/ui/static/')).toBe(true);
        expect([asset, (await get(asset)).status]).toEqual([asset, 200]);
      }
    }
    // The initializer carries the OpenAPI document inline, so the page needs no other request to show it.
    const initializer = await get('/api/docs/ui/static/swagger-initializer.js');
    expect(initializer.text).toContain('"operationId":"api_books_get_collection"');
    expect(initializer.text).toContain('"layout":"BaseLayout"');
  });

  it('answers OpenAPI to application/vnd.openapi+json, and 406 to what it cannot give', async () => {
    const openApi = await get('/api', 'application/vnd.openapi+json');
    expect(openApi.body.openapi).toBe('3.1.0');
    const refused = await get('/api', 'text/plain');
    expect(refused.status).toBe(406);
    expect(refused.body.detail).toBe(
      'Requested format "text/plain" is not supported. Supported MIME types are "application/ld+json", "application/json", "text/html", "application/vnd.openapi+json", "application/vnd.openapi+yaml".',
    );
  });
});

describe('the import rules of openapi/', () => {
  it('reads only metadata/, schema/, the filter types, the serializer plan types and its field access rules', () => {
    const dir = join(src, 'openapi');
    const imports = readdirSync(dir).flatMap((file) =>
      [...readFileSync(join(dir, file), 'utf8').matchAll(/^import (type )?[^'"]*from '([^']+)'/gm)].map(
        (m) => `${m[1] ? 'type ' : ''}${m[2]}`,
      ),
    );
    // field-access.ts says which fields the read and write groups reach, from the metadata alone: the documents
    // describe the bodies the serializer reads and writes with the same rules.
    const allowed =
      /^(type )?(\.\/[\w-]+\.js|\.\.\/metadata\/[\w-]+\.js|\.\.\/schema\/[\w-]+\.js|\.\.\/serializer\/field-access\.js)$|^type \.\.\/(query\/filter|serializer\/normalize)\.js$/;
    expect(imports.length).toBeGreaterThan(5);
    expect(imports.filter((i) => !allowed.test(i))).toEqual([]);
  });
});
