/**
 * Computed (virtual) fields over HTTP, on SQLite and PostgreSQL: worked out from the item when it is sent (an
 * asynchronous function too, once per item), in items, pages and embedded items, with groups and field rules like
 * any field; never a column, never written.
 */
import { describe, expect, inject, it } from 'vitest';
import { defineResource, type Entity } from '@resource-api/core';
import { testDatabases } from '@resource-api/core/testing';
import { call, useApp } from '../helpers.js';

let calls = 0;

const Shelf = defineResource({
  name: 'Shelf',
  fields: {
    label: { type: 'string', groups: ['shelf', 'tome'] },
    tomes: { toMany: 'Tome', mappedBy: 'shelf', groups: ['shelf'] },
    // Asks the database, as a real one would.
    tomeCount: {
      type: 'integer',
      groups: ['shelf', 'tome'],
      computed: async (shelf: Entity) => {
        calls++;
        const { knex } = appRef!.resourceApi.database;
        const [row] = await knex('tome').where('shelf_id', shelf.id!).count({ n: '*' });
        return Number(row!.n);
      },
    },
  },
  normalizationGroups: ['shelf'],
});

const Tome = defineResource({
  name: 'Tome',
  fields: {
    title: { type: 'string', groups: ['tome'] },
    pages: { type: 'integer', groups: ['tome'] },
    shelf: { toOne: 'Shelf', inversedBy: 'tomes', nullable: true, groups: ['tome'] },
    long: { type: 'boolean', groups: ['tome'], computed: (tome: Entity) => (tome.pages as number) > 500 },
    // Only some callers see it: a field rule, as on any field.
    secret: { type: 'string', nullable: true, groups: ['tome'], security: 'false', computed: () => 'hidden' },
    label: { type: 'string', groups: ['other'], computed: () => 'not in the groups' },
  },
  normalizationGroups: ['tome'],
  denormalizationGroups: ['tome'],
});

let appRef: ReturnType<ReturnType<typeof useApp>> | undefined;

describe.each(testDatabases(inject('postgresUrl'), inject('mariadbUrl')))('computed fields on $name', (database) => {
  const app = useApp(database, { resources: [Shelf, Tome] });

  it('sends computed values in items, pages and embedded items, by groups and field rules, and stores none', async () => {
    appRef = app();
    const shelf = (await call(app(), { method: 'POST', url: '/api/shelves', payload: { label: 'Sci-fi' } })).body;
    expect(shelf).toMatchObject({ label: 'Sci-fi', tomeCount: 0 });
    const created = await call(app(), {
      method: 'POST',
      url: '/api/tomes',
      payload: { title: 'Dune', pages: 612, shelf: shelf['@id'], long: false, label: 'x' },
    });
    expect(created.status, created.text).toBe(201);
    // Read-only: a client's value is ignored; the field rule hides `secret`; `label` is not in the read groups.
    expect(created.body).toEqual({
      '@context': '/api/contexts/Tome',
      '@id': created.body['@id'],
      '@type': 'Tome',
      id: created.body.id,
      title: 'Dune',
      pages: 612,
      long: true,
      shelf: { '@id': shelf['@id'], '@type': 'Shelf', id: shelf.id, label: 'Sci-fi', tomeCount: 1 },
    });
    await call(app(), {
      method: 'POST',
      url: '/api/tomes',
      payload: { title: 'Short', pages: 90, shelf: shelf['@id'] },
    });
    const page = await call(app(), { method: 'GET', url: '/api/tomes?order[id]=asc' });
    expect(
      page.body['hydra:member'].map((tome: Entity) => [tome.title, tome.long, (tome.shelf as Entity).tomeCount]),
    ).toEqual([
      ['Dune', true, 2],
      ['Short', false, 2],
    ]);
    calls = 0;
    const shelves = await call(app(), { method: 'GET', url: '/api/shelves' });
    expect(shelves.body['hydra:member'][0]).toMatchObject({ label: 'Sci-fi', tomeCount: 2 });
    expect(calls).toBe(1);
    expect(Object.keys(await app().resourceApi.database.knex('tome').columnInfo())).not.toContain('long');
    const patched = await call(app(), {
      method: 'PATCH',
      url: `/api/tomes/${created.body.id}`,
      payload: JSON.stringify({ pages: 100, long: true }),
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    expect(patched.body.long).toBe(false);
  });
});
