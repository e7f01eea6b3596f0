/**
 * Errors on the wire: each status of the contract's error section, rendered as hydra:Error + RFC 7807 (JSON-LD) or
 * plain problem details (Accept: application/json), and bad input that changes nothing.
 */
import { describe, expect, inject, it } from 'vitest';
import { defineResource, type StateProvider } from '@resource-api/core';
import { buildTestApp, testDatabases } from '@resource-api/core/testing';
import { Author, Book } from '../fixtures.js';
import { call, useApp } from '../helpers.js';

const hydraError = (status: number, detail: string) => ({
  '@context': '/api/contexts/Error',
  '@type': 'hydra:Error',
  'hydra:title': 'An error occurred',
  'hydra:description': detail,
  title: 'An error occurred',
  detail,
  status,
  type: `/errors/${status}`,
});

describe.each(testDatabases(inject('postgresUrl'), inject('mariadbUrl')))('HTTP errors on $name', (database) => {
  const app = useApp(database, { resources: [Author, Book] });
  const count = async () => (await call(app(), { method: 'GET', url: '/api/authors' })).body['hydra:totalItems'];

  it('answers 400 for malformed JSON, and writes nothing', async () => {
    const response = await call(app(), {
      method: 'POST',
      url: '/api/authors',
      headers: { 'content-type': 'application/json' },
      payload: '{"name": "A",',
    });
    expect(response.status).toBe(400);
    expect(response.headers['content-type']).toBe('application/ld+json; charset=utf-8');
    expect(response.body).toMatchObject({ '@type': 'hydra:Error', status: 400 });
    expect(response.body.detail).toMatch(/^Syntax error: /);
    expect(await count()).toBe(0);
  });

  it('answers 400 for an empty body and for a body that is not an object', async () => {
    const empty = await call(app(), {
      method: 'POST',
      url: '/api/authors',
      headers: { 'content-type': 'application/json' },
      payload: '',
    });
    expect(empty.status).toBe(400);
    expect(empty.body).toEqual(hydraError(400, 'The request body is empty; send a JSON object.'));
    for (const payload of ['[]', '"x"', '12', 'null']) {
      const response = await call(app(), {
        method: 'POST',
        url: '/api/authors',
        headers: { 'content-type': 'application/json' },
        payload,
      });
      expect(response.status, payload).toBe(400);
      expect(response.body, payload).toEqual(hydraError(400, 'The request body must be a JSON object.'));
    }
    expect(await count()).toBe(0);
  });

  it('refuses prototype-pollution keys with 400', async () => {
    const response = await call(app(), {
      method: 'POST',
      url: '/api/authors',
      headers: { 'content-type': 'application/json' },
      payload: '{"name":"A","__proto__":{"admin":true}}',
    });
    expect(response.status).toBe(400);
    expect(await count()).toBe(0);
  });

  it('answers 400 with violations naming each property of the wrong type, all at once', async () => {
    await call(app(), { method: 'POST', url: '/api/authors', payload: { name: 'A' } });
    const response = await call(app(), {
      method: 'POST',
      url: '/api/books',
      payload: {
        title: 12,
        pages: 'many',
        price: 'cheap',
        available: 'yes',
        publishedAt: 'yesterday',
        releaseDate: '2021-02-30',
        tags: ['a', 3],
        author: { name: 'x' },
      },
    });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({
      '@context': '/api/contexts/ConstraintViolationList',
      '@type': 'ConstraintViolationList',
      'hydra:title': 'An error occurred',
      'hydra:description': [
        'title: This value should be of type string.',
        'pages: This value should be of type integer.',
        'price: This value should be of type number.',
        'available: This value should be of type boolean.',
        'publishedAt: This value is not a valid datetime.',
        'releaseDate: This value is not a valid date.',
        'tags[1]: This value should be of type string.',
        'author: This value should be an IRI string of "Author" items.',
      ].join('\n'),
      violations: expect.any(Array),
    });
    expect(response.body.violations[0]).toEqual({
      propertyPath: 'title',
      message: 'This value should be of type string.',
      code: 'ba785a8c-82cb-4283-967c-3cf342181b40',
    });
    expect((await call(app(), { method: 'GET', url: '/api/books' })).body['hydra:totalItems']).toBe(0);
  });

  it('reports a missing required field and a bad IRI together', async () => {
    const response = await call(app(), { method: 'POST', url: '/api/books', payload: { author: '/api/books/1' } });
    expect(response.status).toBe(400);
    expect(response.body.violations).toEqual([
      {
        propertyPath: 'author',
        message: 'IRI "/api/books/1" is not an item of type "Author".',
        code: expect.any(String),
      },
      {
        propertyPath: 'title',
        message: 'This value should not be null.',
        code: 'ad32d13f-c3d4-423b-909a-857b961eb720',
      },
    ]);
  });

  it('answers 400 naming the property for garbage, foreign and missing IRIs', async () => {
    await call(app(), { method: 'POST', url: '/api/authors', payload: { name: 'A' } });
    const cases = [
      ['garbage', 'Invalid IRI "garbage".'],
      ['/api/authors/abc', 'Invalid IRI "/api/authors/abc".'],
      ['/api/authors/999', 'Item not found for "/api/authors/999".'],
      ['/api/unknown/1', 'Invalid IRI "/api/unknown/1".'],
    ];
    for (const [iri, message] of cases) {
      const response = await call(app(), { method: 'POST', url: '/api/books', payload: { title: 'T', author: iri } });
      expect(response.status, iri).toBe(400);
      expect(response.body.violations, iri).toEqual([{ propertyPath: 'author', message, code: expect.any(String) }]);
    }
  });

  it('answers 400 for integers out of range and numbers too large to be finite', async () => {
    await call(app(), { method: 'POST', url: '/api/authors', payload: { name: 'A' } });
    const big = await call(app(), {
      method: 'POST',
      url: '/api/books',
      payload: { title: 'T', author: '/api/authors/1', pages: 3_000_000_000 },
    });
    expect(big.status).toBe(400);
    expect(big.body.violations[0].propertyPath).toBe('pages');
    const infinite = await call(app(), {
      method: 'POST',
      url: '/api/books',
      headers: { 'content-type': 'application/json' },
      payload: '{"title":"T","author":"/api/authors/1","price":1e400}',
    });
    expect(infinite.status).toBe(400);
    expect(infinite.body.violations[0].propertyPath).toBe('price');
  });

  it('refuses the NUL character in body strings and in query values with 400, on every database', async () => {
    const body = await call(app(), {
      method: 'POST',
      url: '/api/authors',
      headers: { 'content-type': 'application/json' },
      payload: '{"name":"a\\u0000b"}',
    });
    expect(body.status).toBe(400);
    expect(body.body.violations).toEqual([
      { propertyPath: 'name', message: 'This value must not contain the NUL character.', code: expect.any(String) },
    ]);
    const nested = await call(app(), {
      method: 'POST',
      url: '/api/books',
      payload: { title: 'T', extra: { list: ['ok', 'a\u0000'] } },
    });
    expect(nested.body.violations[0].propertyPath).toBe('extra.list[1]');
    const query = await call(app(), { method: 'GET', url: '/api/authors?name=%00' });
    expect(query.status).toBe(400);
    expect(query.body.detail).toBe('Query parameter "name" must not contain the NUL character.');
    expect(await count()).toBe(0);
  });

  it('accepts absolute IRIs for relations', async () => {
    await call(app(), { method: 'POST', url: '/api/authors', payload: { name: 'A' } });
    const response = await call(app(), {
      method: 'POST',
      url: '/api/books',
      payload: { title: 'T', author: 'http://localhost:8000/api/authors/1' },
    });
    expect(response.status).toBe(201);
    expect(response.body.author).toBe('/api/authors/1');
  });

  it('answers 400, not 500, for a date-time JavaScript cannot hold (a leap second)', async () => {
    await call(app(), { method: 'POST', url: '/api/authors', payload: { name: 'A' } });
    const response = await call(app(), {
      method: 'POST',
      url: '/api/books',
      payload: { title: 'T', author: '/api/authors/1', publishedAt: '2016-12-31T23:59:60Z' },
    });
    expect(response.status).toBe(400);
    expect(response.body.violations).toEqual([
      { propertyPath: 'publishedAt', message: 'This value is not a valid datetime.', code: expect.any(String) },
    ]);
  });

  it('answers 400 when a POST body carries an @id', async () => {
    const response = await call(app(), {
      method: 'POST',
      url: '/api/authors',
      payload: { '@id': '/api/authors/1', name: 'A' },
    });
    expect(response.status).toBe(400);
    expect(response.body).toEqual(hydraError(400, 'Update is not allowed for this operation.'));
  });

  it('answers 404 for an unknown path', async () => {
    const response = await call(app(), { method: 'GET', url: '/api/unknown?x=1' });
    expect(response.status).toBe(404);
    expect(response.body).toEqual(hydraError(404, 'No route found for "GET /api/unknown".'));
    expect(response.headers.link).toBe(
      '<http://localhost:80/api/docs.jsonld>; rel="http://www.w3.org/ns/hydra/core#apiDocumentation"',
    );
  });

  it('answers 405 with an Allow header for a method not exposed on a known path', async () => {
    const response = await call(app(), { method: 'POST', url: '/api/authors/1' });
    expect(response.status).toBe(405);
    expect(response.headers.allow).toBe('GET, HEAD, PUT, PATCH, DELETE');
    expect(response.body).toEqual(
      hydraError(
        405,
        'No route found for "POST /api/authors/1": Method Not Allowed (Allow: GET, HEAD, PUT, PATCH, DELETE).',
      ),
    );
    const collection = await call(app(), { method: 'DELETE', url: '/api/authors' });
    expect(collection.status).toBe(405);
    expect(collection.headers.allow).toBe('GET, HEAD, POST');
  });

  it('answers 406 for an Accept header it cannot serve', async () => {
    for (const accept of ['text/html', 'application/xml', 'text/plain']) {
      const response = await call(app(), { method: 'GET', url: '/api/authors', headers: { accept } });
      expect(response.status, accept).toBe(406);
      expect(response.body, accept).toEqual(
        hydraError(
          406,
          `Requested format "${accept}" is not supported. Supported MIME types are "application/ld+json", "application/json".`,
        ),
      );
    }
  });

  it('negotiates Accept with quality values and wildcards', async () => {
    const cases: [string, string][] = [
      ['*/*', 'application/ld+json'],
      ['application/*', 'application/ld+json'],
      ['application/json;q=0.9, application/ld+json;q=0.5', 'application/json'],
      ['text/html, application/json;q=0.1', 'application/json'],
    ];
    for (const [accept, type] of cases) {
      const response = await call(app(), { method: 'GET', url: '/api/authors', headers: { accept } });
      expect(response.headers['content-type'], accept).toBe(`${type}; charset=utf-8`);
    }
  });

  it('answers 415 for a body of another type or without Content-Type, and writes nothing', async () => {
    const text = await call(app(), {
      method: 'POST',
      url: '/api/authors',
      headers: { 'content-type': 'text/plain' },
      payload: 'name=A',
    });
    expect(text.status).toBe(415);
    expect(text.body).toEqual(
      hydraError(
        415,
        'The content-type "text/plain" is not supported. Supported MIME types are "application/ld+json", "application/json".',
      ),
    );
    const patch = await call(app(), {
      method: 'PATCH',
      url: '/api/authors/1',
      headers: { 'content-type': 'application/xml' },
      payload: '<a/>',
    });
    expect(patch.status).toBe(415);
    expect(patch.body.detail).toContain('"application/merge-patch+json", "application/ld+json", "application/json"');
    const form = await call(app(), {
      method: 'POST',
      url: '/api/authors',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'name=A',
    });
    expect(form.status).toBe(415);
    expect(await count()).toBe(0);
  });

  it('accepts a Content-Type on GET and DELETE without a body (API Platform Admin sends one)', async () => {
    await call(app(), { method: 'POST', url: '/api/authors', payload: { name: 'A' } });
    const get = await call(app(), {
      method: 'GET',
      url: '/api/authors/1',
      headers: { 'content-type': 'application/ld+json' },
    });
    expect(get.status).toBe(200);
    const del = await call(app(), {
      method: 'DELETE',
      url: '/api/authors/1',
      headers: { 'content-type': 'application/ld+json' },
    });
    expect(del.status).toBe(204);
  });

  it('renders plain problem details for Accept: application/json', async () => {
    const response = await call(app(), {
      method: 'GET',
      url: '/api/authors/9',
      headers: { accept: 'application/json' },
    });
    expect(response.status).toBe(404);
    expect(response.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    expect(response.body).toEqual({
      type: '/errors/404',
      title: 'An error occurred',
      detail: 'Not Found',
      status: 404,
    });
    const invalid = await call(app(), {
      method: 'POST',
      url: '/api/authors',
      headers: { accept: 'application/json' },
      payload: { name: 5 },
    });
    expect(invalid.status).toBe(400);
    expect(invalid.body).toEqual({
      type: '/validation_errors/ba785a8c-82cb-4283-967c-3cf342181b40',
      title: 'An error occurred',
      detail: 'name: This value should be of type string.',
      status: 400,
      violations: [
        {
          propertyPath: 'name',
          message: 'This value should be of type string.',
          code: 'ba785a8c-82cb-4283-967c-3cf342181b40',
        },
      ],
    });
  });

  it('answers 413 for a body over the limit', async () => {
    const payload = JSON.stringify({ name: 'x'.repeat(1024 * 1024) });
    const response = await call(app(), {
      method: 'POST',
      url: '/api/authors',
      headers: { 'content-type': 'application/json' },
      payload,
    });
    expect(response.status).toBe(413);
    expect(response.body).toEqual(hydraError(413, 'The request body is too large.'));
    expect(await count()).toBe(0);
  });

  it('carries the Hydra Link header on every response, errors included', async () => {
    for (const url of ['/api/authors', '/api/authors/9', '/api/contexts/Author', '/api']) {
      const response = await call(app(), { method: 'GET', url, headers: { host: 'example.test:8000' } });
      expect(response.headers.link, url).toBe(
        '<http://example.test:8000/api/docs.jsonld>; rel="http://www.w3.org/ns/hydra/core#apiDocumentation"',
      );
    }
  });
});

describe.each(testDatabases(inject('postgresUrl'), inject('mariadbUrl')))('unexpected errors on $name', (database) => {
  it('answers 500 without a stack trace or the original message', async () => {
    const failing: StateProvider = {
      provide: async () => {
        throw new Error('secret connection string postgres://admin:hunter2@db');
      },
    };
    const app = await buildTestApp({
      database,
      resources: [defineResource({ name: 'Thing', fields: { name: { type: 'string' } }, provider: failing })],
    });
    const response = await call(app, { method: 'GET', url: '/api/things' });
    expect(response.status).toBe(500);
    expect(response.body).toEqual(hydraError(500, 'Internal Server Error'));
    expect(response.text).not.toContain('hunter2');
    expect(response.text).not.toContain('at ');
    await app.close();
  });

  it('renders what is thrown that is no Error as an Error would be: a string a 500, an object with a 400 a 400', async () => {
    const thrown: unknown[] = ['secret string from postgres://admin:hunter2@db', { statusCode: 400, message: 'No.' }];
    const throwing: StateProvider = {
      provide: async () => {
        throw thrown.shift();
      },
    };
    const app = await buildTestApp({
      database,
      resources: [defineResource({ name: 'Thing', fields: { name: { type: 'string' } }, provider: throwing })],
    });
    try {
      const first = await call(app, { method: 'GET', url: '/api/things' });
      expect(first.status).toBe(500);
      expect(first.body).toEqual(hydraError(500, 'Internal Server Error'));
      expect(first.text).not.toContain('hunter2');
      const second = await call(app, { method: 'GET', url: '/api/things' });
      expect(second.status).toBe(400);
      expect(second.body).toEqual(hydraError(400, 'No.'));
    } finally {
      await app.close();
    }
  });
});
