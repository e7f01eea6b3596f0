/** A user's own StateProvider / StateProcessor replace the built-in ones, per resource or per operation. */
import { describe, expect, inject, it } from 'vitest';
import { defineResource, type Entity, type ItemId, type StateProcessor, type StateProvider } from '@resource-api/core';
import { buildTestApp, testDatabases } from '@resource-api/core/testing';
import { call } from '../helpers.js';

describe.each(testDatabases(inject('postgresUrl'), inject('mariadbUrl')))('state contracts on $name', (database) => {
  it('reads through a resource provider and writes through a resource processor', async () => {
    const store = new Map<ItemId, Entity>([[1, { id: 1, name: 'in memory' }]]);
    const provider: StateProvider = {
      async provide(context) {
        if (context.operation.collection) return { items: [...store.values()], totalItems: store.size };
        return store.get(context.id!) ?? null;
      },
    };
    const processor: StateProcessor = {
      async process(data, context) {
        if (context.operation.kind === 'delete') {
          store.delete(context.id!);
          return;
        }
        const id = context.id ?? store.size + 1;
        const stored = { ...data, id };
        store.set(id, stored);
        return stored;
      },
    };
    const Memo = defineResource({ name: 'Memo', fields: { name: { type: 'string' } }, provider, processor });
    const app = await buildTestApp({ database, resources: [Memo] });
    expect((await call(app, { method: 'GET', url: '/api/memos/1' })).body).toEqual({
      '@context': '/api/contexts/Memo',
      '@id': '/api/memos/1',
      '@type': 'Memo',
      id: 1,
      name: 'in memory',
    });
    expect((await call(app, { method: 'GET', url: '/api/memos/2' })).status).toBe(404);
    const created = await call(app, { method: 'POST', url: '/api/memos', payload: { name: 'second' } });
    expect(created.status).toBe(201);
    expect(created.headers.location).toBe('/api/memos/2');
    expect(
      (
        await call(app, {
          method: 'PATCH',
          url: '/api/memos/2',
          headers: { 'content-type': 'application/merge-patch+json' },
          payload: JSON.stringify({ name: 'changed' }),
        })
      ).body.name,
    ).toBe('changed');
    expect((await call(app, { method: 'DELETE', url: '/api/memos/1' })).status).toBe(204);
    expect((await call(app, { method: 'GET', url: '/api/memos' })).body['hydra:member']).toEqual([
      { '@id': '/api/memos/2', '@type': 'Memo', id: 2, name: 'changed' },
    ]);
    // nothing reached the database: the resource has no table at all
    expect(await app.resourceApi.database.knex.schema.hasTable('memo')).toBe(false);
    await app.close();
  });

  it('checks and embeds relations to items served by a custom provider', async () => {
    const planets = new Map<ItemId, Entity>([
      [1, { id: 1, name: 'Arrakis' }],
      [2, { id: 2, name: 'Caladan' }],
    ]);
    const Planet = defineResource({
      name: 'Planet',
      fields: { name: { type: 'string', groups: ['house:read'] } },
      operations: ['get'],
      provider: { provide: async (context) => planets.get(context.id!) ?? null },
      processor: { process: async () => undefined },
    });
    const House = defineResource({
      name: 'House',
      normalizationGroups: ['house:read'],
      fields: { name: { type: 'string', groups: ['house:read'] }, planet: { toOne: 'Planet', groups: ['house:read'] } },
    });
    const app = await buildTestApp({ database, resources: [Planet, House] });
    const created = await call(app, {
      method: 'POST',
      url: '/api/houses',
      payload: { name: 'Atreides', planet: '/api/planets/2' },
    });
    expect(created.status).toBe(201);
    expect(created.body.planet).toEqual({ '@id': '/api/planets/2', '@type': 'Planet', id: 2, name: 'Caladan' });
    const missing = await call(app, {
      method: 'POST',
      url: '/api/houses',
      payload: { name: 'Harkonnen', planet: '/api/planets/9' },
    });
    expect(missing.body.violations).toEqual([
      { propertyPath: 'planet', message: 'Item not found for "/api/planets/9".', code: expect.any(String) },
    ]);
    await app.close();
  });

  it('lets one operation use its own processor, with the database for its own queries', async () => {
    const shouting: StateProcessor = {
      async process(data, context) {
        const [row] = await context
          .db('note')
          .insert({ text: String(data.text).toUpperCase() })
          .returning('id');
        return { id: Number(typeof row === 'object' ? row.id : row), text: String(data.text).toUpperCase() };
      },
    };
    const Note = defineResource({
      name: 'Note',
      fields: { text: { type: 'string' } },
      operations: ['get', { kind: 'post', processor: shouting }],
    });
    const app = await buildTestApp({ database, resources: [Note] });
    const created = await call(app, { method: 'POST', url: '/api/notes', payload: { text: 'hello' } });
    expect(created.body.text).toBe('HELLO');
    expect((await call(app, { method: 'GET', url: '/api/notes/1' })).body.text).toBe('HELLO');
    await app.close();
  });
});
