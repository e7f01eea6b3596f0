/** Exposing operations: all six by default, only the declared ones otherwise, none for an empty list. */
import { describe, expect, inject, it } from 'vitest';
import { defineResource } from '@resource-api/core';
import { buildTestApp, testDatabases } from '@resource-api/core/testing';
import { call } from '../helpers.js';

const fields = { name: { type: 'string' } } as const;

describe.each(testDatabases(inject('postgresUrl'), inject('mariadbUrl')))(
  'declared operations on $name',
  (database) => {
    it('exposes only the declared operations; the others are 405 on known paths', async () => {
      const app = await buildTestApp({
        database,
        resources: [defineResource({ name: 'Tag', fields, operations: ['post', 'get'] })],
      });
      expect((await call(app, { method: 'POST', url: '/api/tags', payload: { name: 'a' } })).status).toBe(201);
      expect((await call(app, { method: 'GET', url: '/api/tags/1' })).status).toBe(200);
      const list = await call(app, { method: 'GET', url: '/api/tags' });
      expect(list.status).toBe(405);
      expect(list.headers.allow).toBe('POST');
      for (const method of ['PUT', 'PATCH', 'DELETE'] as const) {
        const response = await call(app, { method, url: '/api/tags/1', payload: { name: 'b' } });
        expect(response.status, method).toBe(405);
        expect(response.headers.allow).toBe('GET, HEAD');
      }
      expect((await call(app, { method: 'GET', url: '/api/tags/1' })).body.name).toBe('a');
      await app.close();
    });

    it('exposes no path at all for an empty list: 404', async () => {
      const app = await buildTestApp({
        database,
        resources: [defineResource({ name: 'Secret', fields, operations: [] })],
      });
      expect((await call(app, { method: 'GET', url: '/api/secrets' })).status).toBe(404);
      expect((await call(app, { method: 'POST', url: '/api/secrets', payload: { name: 'x' } })).status).toBe(404);
      expect((await call(app, { method: 'GET', url: '/api/secrets/1' })).status).toBe(404);
      await app.close();
    });

    it('answers only the item path when only item operations are declared', async () => {
      const app = await buildTestApp({
        database,
        resources: [defineResource({ name: 'Setting', fields, operations: ['get', 'delete'] })],
      });
      expect((await call(app, { method: 'GET', url: '/api/settings' })).status).toBe(404);
      const options = await call(app, { method: 'OPTIONS', url: '/api/settings/1' });
      expect(options.status).toBe(204);
      expect(options.headers.allow).toBe('GET, HEAD, DELETE, OPTIONS');
      await app.close();
    });

    it('answers HEAD like GET without a body', async () => {
      const app = await buildTestApp({ database, resources: [defineResource({ name: 'Tag', fields })] });
      await call(app, { method: 'POST', url: '/api/tags', payload: { name: 'a' } });
      const head = await call(app, { method: 'HEAD', url: '/api/tags/1' });
      expect(head.status).toBe(200);
      expect(head.text).toBe('');
      expect(head.headers['content-type']).toBe('application/ld+json; charset=utf-8');
      await app.close();
    });

    it('serves the API under another prefix when configured', async () => {
      const app = await buildTestApp({ database, prefix: '/v2', resources: [defineResource({ name: 'Tag', fields })] });
      const created = await call(app, { method: 'POST', url: '/v2/tags', payload: { name: 'a' } });
      expect(created.body).toEqual({
        '@context': '/v2/contexts/Tag',
        '@id': '/v2/tags/1',
        '@type': 'Tag',
        id: 1,
        name: 'a',
      });
      expect(created.headers.location).toBe('/v2/tags/1');
      expect((await call(app, { method: 'GET', url: '/api/tags' })).status).toBe(404);
      await app.close();
    });
  },
);
