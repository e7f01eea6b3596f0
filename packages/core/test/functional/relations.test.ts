/** To-one and to-many relations: IRIs both ways, the inverse side kept correct, and what deleting a target does. */
import { describe, expect, inject, it } from 'vitest';
import { defineResource } from '@resource-api/core';
import { buildTestApp, testDatabases } from '@resource-api/core/testing';
import { call } from '../helpers.js';

const resources = [
  defineResource({
    name: 'Shelf',
    fields: {
      label: { type: 'string' },
      boxes: { toMany: 'Box', mappedBy: 'shelf' },
      tags: { toMany: 'Tag', mappedBy: 'shelf' },
    },
  }),
  defineResource({
    name: 'Box',
    fields: { shelf: { toOne: 'Shelf', onDelete: 'cascade' }, parent: { toOne: 'Box', nullable: true } },
  }),
  defineResource({ name: 'Tag', fields: { shelf: { toOne: 'Shelf', nullable: true, onDelete: 'set null' } } }),
];

describe.each(testDatabases(inject('postgresUrl'), inject('mariadbUrl')))('relations on $name', (database) => {
  it('keeps the inverse side in step with writes on the owning side', async () => {
    const app = await buildTestApp({ database, resources });
    await call(app, { method: 'POST', url: '/api/shelves', payload: { label: 'A' } });
    await call(app, { method: 'POST', url: '/api/shelves', payload: { label: 'B' } });
    await call(app, { method: 'POST', url: '/api/boxes', payload: { shelf: '/api/shelves/1' } });
    const box = await call(app, {
      method: 'POST',
      url: '/api/boxes',
      payload: { shelf: '/api/shelves/1', parent: '/api/boxes/1' },
    });
    expect(box.body).toEqual({
      '@context': '/api/contexts/Box',
      '@id': '/api/boxes/2',
      '@type': 'Box',
      id: 2,
      shelf: '/api/shelves/1',
      parent: '/api/boxes/1',
    });
    expect((await call(app, { method: 'GET', url: '/api/shelves/1' })).body.boxes).toEqual([
      '/api/boxes/1',
      '/api/boxes/2',
    ]);
    await call(app, {
      method: 'PATCH',
      url: '/api/boxes/2',
      headers: { 'content-type': 'application/merge-patch+json' },
      payload: JSON.stringify({ shelf: '/api/shelves/2', parent: null }),
    });
    expect((await call(app, { method: 'GET', url: '/api/shelves/1' })).body.boxes).toEqual(['/api/boxes/1']);
    expect((await call(app, { method: 'GET', url: '/api/shelves/2' })).body.boxes).toEqual(['/api/boxes/2']);
    expect((await call(app, { method: 'GET', url: '/api/boxes/2' })).body).not.toHaveProperty('parent');
    await app.close();
  });

  it('refuses null for a required relation and accepts it for a nullable one', async () => {
    const app = await buildTestApp({ database, resources });
    await call(app, { method: 'POST', url: '/api/shelves', payload: { label: 'A' } });
    const required = await call(app, { method: 'POST', url: '/api/boxes', payload: { shelf: null } });
    expect(required.status).toBe(400);
    expect(required.body.violations).toEqual([
      {
        propertyPath: 'shelf',
        message: 'This value should not be null.',
        code: 'ad32d13f-c3d4-423b-909a-857b961eb720',
      },
    ]);
    expect((await call(app, { method: 'POST', url: '/api/tags', payload: { shelf: null } })).status).toBe(201);
    await app.close();
  });

  it('cascades or sets null on delete as declared', async () => {
    const app = await buildTestApp({ database, resources });
    await call(app, { method: 'POST', url: '/api/shelves', payload: { label: 'A' } });
    await call(app, { method: 'POST', url: '/api/boxes', payload: { shelf: '/api/shelves/1' } });
    await call(app, { method: 'POST', url: '/api/tags', payload: { shelf: '/api/shelves/1' } });
    expect((await call(app, { method: 'DELETE', url: '/api/shelves/1' })).status).toBe(204);
    expect((await call(app, { method: 'GET', url: '/api/boxes/1' })).status).toBe(404);
    expect((await call(app, { method: 'GET', url: '/api/tags/1' })).body).toEqual({
      '@context': '/api/contexts/Tag',
      '@id': '/api/tags/1',
      '@type': 'Tag',
      id: 1,
    });
    await app.close();
  });
});
