/**
 * CORS (@fastify/cors, off by default): preflights for every method of the API, the headers a client reads exposed
 * (`Link`, `Location`, `ETag`), origins checked, and the API's own `OPTIONS` answers (`Allow`) left alone.
 */
import { describe, expect, it } from 'vitest';
import { buildTestApp, testDatabases } from '@resource-api/core/testing';
import { Author, Book } from '../fixtures.js';
import { call, useApp } from '../helpers.js';

const [sqlite] = testDatabases(undefined);
const ADMIN_ORIGIN = 'https://admin.example.com';

describe('without the cors option', () => {
  const app = useApp(sqlite!, { resources: [Author, Book], production: {} });

  it('sends no CORS header, and OPTIONS answers with Allow', async () => {
    const response = await call(app(), { method: 'GET', url: '/api/authors', headers: { origin: ADMIN_ORIGIN } });
    expect(response.status).toBe(200);
    expect(response.headers['access-control-allow-origin']).toBeUndefined();
    const preflight = await call(app(), {
      method: 'OPTIONS',
      url: '/api/authors/1',
      headers: { origin: ADMIN_ORIGIN, 'access-control-request-method': 'PUT' },
    });
    expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
    expect(preflight.headers['access-control-allow-methods']).toBeUndefined();
  });
});

describe('with cors: { origin: [the admin origin] }', () => {
  const app = useApp(sqlite!, { resources: [Author, Book], production: { cors: { origin: [ADMIN_ORIGIN] } } });

  it('answers a preflight for PUT, PATCH and DELETE with the methods of the API and the requested headers', async () => {
    for (const method of ['PUT', 'PATCH', 'DELETE']) {
      const response = await call(app(), {
        method: 'OPTIONS',
        url: '/api/authors/1',
        headers: {
          origin: ADMIN_ORIGIN,
          'access-control-request-method': method,
          'access-control-request-headers': 'authorization, content-type',
        },
      });
      expect(response.status, method).toBe(204);
      expect(response.headers['access-control-allow-origin']).toBe(ADMIN_ORIGIN);
      expect(response.headers['access-control-allow-methods']).toBe('GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS');
      expect(response.headers['access-control-allow-headers']).toBe('authorization, content-type');
      expect(response.text).toBe('');
    }
  });

  it('exposes Link, Location and ETag to the page that created an item', async () => {
    const response = await call(app(), {
      method: 'POST',
      url: '/api/authors',
      headers: { origin: ADMIN_ORIGIN },
      payload: { name: 'Octavia E. Butler' },
    });
    expect(response.status).toBe(201);
    expect(response.headers['access-control-allow-origin']).toBe(ADMIN_ORIGIN);
    expect(response.headers['access-control-expose-headers']).toBe('Link, Location, ETag');
    expect(response.headers.location).toBe('/api/authors/1');
    expect(response.headers.link).toContain('rel="http://www.w3.org/ns/hydra/core#apiDocumentation"');
    expect(response.headers.vary).toBe('Origin, Accept');
    const docs = await call(app(), {
      method: 'GET',
      url: '/api/docs',
      headers: { origin: ADMIN_ORIGIN, accept: 'application/ld+json' },
    });
    expect(docs.headers.vary).toBe('Origin, Accept');
  });

  it('gives another origin no Access-Control-Allow-Origin, so its browser keeps the answer from the page', async () => {
    const response = await call(app(), {
      method: 'GET',
      url: '/api/authors',
      headers: { origin: 'https://evil.example' },
    });
    expect(response.headers['access-control-allow-origin']).toBeUndefined();
    const preflight = await call(app(), {
      method: 'OPTIONS',
      url: '/api/authors',
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
    });
    expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('carries the CORS headers on errors too, so the page can read the problem', async () => {
    const response = await call(app(), { method: 'GET', url: '/api/authors/999', headers: { origin: ADMIN_ORIGIN } });
    expect(response.status).toBe(404);
    expect(response.headers['access-control-allow-origin']).toBe(ADMIN_ORIGIN);
    expect(response.body.detail).toBe('Not Found');
  });

  it('leaves OPTIONS requests that are no preflight to the API, which answers with Allow', async () => {
    const response = await call(app(), { method: 'OPTIONS', url: '/api/authors/1' });
    expect(response.status).toBe(204);
    expect(response.headers.allow).toBe('GET, HEAD, PUT, PATCH, DELETE, OPTIONS');
    const withOrigin = await call(app(), { method: 'OPTIONS', url: '/api/authors', headers: { origin: ADMIN_ORIGIN } });
    expect(withOrigin.status).toBe(204);
    expect(withOrigin.headers.allow).toBe('GET, HEAD, POST, OPTIONS');
    expect(withOrigin.headers['access-control-allow-origin']).toBe(ADMIN_ORIGIN);
  });

  it('answers preflights of the GraphQL endpoint too', async () => {
    const response = await call(app(), {
      method: 'OPTIONS',
      url: '/graphql',
      headers: { origin: ADMIN_ORIGIN, 'access-control-request-method': 'POST' },
    });
    expect(response.status).toBe(204);
    expect(response.headers['access-control-allow-origin']).toBe(ADMIN_ORIGIN);
  });
});

describe('cors options of one’s own', () => {
  it('replace the defaults they name: exposed headers, credentials', async () => {
    const app = await buildTestApp({
      database: sqlite!,
      resources: [Author, Book],
      production: { cors: { origin: true, credentials: true, exposedHeaders: ['Link'] } },
    });
    try {
      const response = await call(app, {
        method: 'GET',
        url: '/api/authors',
        headers: { origin: 'http://localhost:5173' },
      });
      expect(response.headers['access-control-allow-origin']).toBe('http://localhost:5173');
      expect(response.headers['access-control-allow-credentials']).toBe('true');
      expect(response.headers['access-control-expose-headers']).toBe('Link');
    } finally {
      await app.close();
    }
  });
});
