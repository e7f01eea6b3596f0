/** Serialization groups, embedded relations (batched, cycles cut) and plain JSON, on SQLite and PostgreSQL. */
import { describe, expect, inject, it } from 'vitest';
import { defineResource } from '@resource-api/core';
import { testDatabases } from '@resource-api/core/testing';
import { call, useApp } from '../helpers.js';

const Category = defineResource({
  name: 'Category',
  fields: {
    name: { type: 'string', groups: ['product:read'] },
    code: { type: 'string', nullable: true },
    products: { toMany: 'Product', mappedBy: 'category' },
  },
});
const Brand = defineResource({
  name: 'Brand',
  fields: {
    name: { type: 'string', groups: ['product:read'] },
    owner: { toOne: 'Company', nullable: true, groups: ['product:read'] },
  },
});
const Company = defineResource({
  name: 'Company',
  fields: {
    name: { type: 'string', groups: ['product:read'] },
    brands: { toMany: 'Brand', mappedBy: 'owner', groups: ['product:read'] },
  },
});
const Product = defineResource({
  name: 'Product',
  normalizationGroups: ['product:read'],
  denormalizationGroups: ['product:write'],
  fields: {
    name: { type: 'string', groups: ['product:read', 'product:write'] },
    price: { type: 'float', groups: ['product:read', 'product:write'] },
    secretCost: { type: 'float', default: 0, groups: ['product:write'] },
    internal: { type: 'string', default: 'x', groups: ['admin'] },
    category: { toOne: 'Category', nullable: true, groups: ['product:read', 'product:write'] },
    brand: { toOne: 'Brand', nullable: true, groups: ['product:read', 'product:write'] },
  },
  operations: [
    'getCollection',
    'get',
    'post',
    'patch',
    { kind: 'put', normalizationGroups: ['admin', 'product:read'], denormalizationGroups: ['admin', 'product:write'] },
  ],
});

describe.each(testDatabases(inject('postgresUrl'), inject('mariadbUrl')))(
  'groups and embedding on $name',
  (database) => {
    const app = useApp(database, { resources: [Category, Brand, Company, Product] });
    const post = (url: string, payload: object) => call(app(), { method: 'POST', url, payload });
    async function seed() {
      await post('/api/companies', { name: 'Acme Corp' });
      await post('/api/categories', { name: 'Books', code: 'B' });
      await post('/api/brands', { name: 'Acme', owner: '/api/companies/1' });
      return post('/api/products', {
        name: 'Dune',
        price: 9.5,
        secretCost: 3,
        internal: 'ignored',
        category: '/api/categories/1',
        brand: '/api/brands/1',
      });
    }

    it('embeds relations whose target has fields in the read groups, with only those fields; cycles become IRIs', async () => {
      const created = await seed();
      expect(created.status).toBe(201);
      expect(created.body).toEqual({
        '@context': '/api/contexts/Product',
        '@id': '/api/products/1',
        '@type': 'Product',
        id: 1,
        name: 'Dune',
        price: 9.5,
        category: { '@id': '/api/categories/1', '@type': 'Category', id: 1, name: 'Books' },
        brand: {
          '@id': '/api/brands/1',
          '@type': 'Brand',
          id: 1,
          name: 'Acme',
          // Company.brands points back to Brand, already embedded on the way down: IRIs.
          owner: { '@id': '/api/companies/1', '@type': 'Company', id: 1, name: 'Acme Corp', brands: ['/api/brands/1'] },
        },
      });
    });

    it('ignores fields outside the write groups silently, and writes those inside', async () => {
      await seed();
      const { knex } = app().resourceApi.database;
      expect(await knex('product').where('id', 1).first()).toMatchObject({ secret_cost: 3, internal: 'x' });
      // The PUT operation has the admin group too: `internal` is written and read there.
      const put = await call(app(), {
        method: 'PUT',
        url: '/api/products/1',
        payload: { name: 'Dune', price: 1, internal: 'set by admin' },
      });
      expect(put.body.internal).toBe('set by admin');
      expect(put.body).not.toHaveProperty('category');
      expect((await call(app(), { method: 'GET', url: '/api/products/1' })).body).not.toHaveProperty('internal');
    });

    it('renders relations without groups as IRIs, and embeds the same way in plain JSON', async () => {
      await seed();
      expect((await call(app(), { method: 'GET', url: '/api/categories/1' })).body).toEqual({
        '@context': '/api/contexts/Category',
        '@id': '/api/categories/1',
        '@type': 'Category',
        id: 1,
        name: 'Books',
        code: 'B',
        products: ['/api/products/1'],
      });
      const json = await call(app(), {
        method: 'GET',
        url: '/api/products/1',
        headers: { accept: 'application/json' },
      });
      expect(json.body).toEqual({
        id: 1,
        name: 'Dune',
        price: 9.5,
        category: { id: 1, name: 'Books' },
        brand: { id: 1, name: 'Acme', owner: { id: 1, name: 'Acme Corp', brands: ['/api/brands/1'] } },
      });
    });

    it('chooses groups per request with a function', async () => {
      const calls: string[] = [];
      const Note = defineResource({
        name: 'Note',
        // Collections show the title only; items show everything.
        normalizationGroups: ({ operation, roles }) => {
          calls.push(`${operation.kind}:${roles.length}`);
          return operation.kind === 'getCollection' ? ['list'] : ['list', 'detail'];
        },
        fields: { title: { type: 'string', groups: ['list', 'detail'] }, body: { type: 'text', groups: ['detail'] } },
      });
      const { buildTestApp } = await import('@resource-api/core/testing');
      const noteApp = await buildTestApp({ database, resources: [Note] });
      await call(noteApp, { method: 'POST', url: '/api/notes', payload: { title: 'T', body: 'B' } });
      expect((await call(noteApp, { method: 'GET', url: '/api/notes/1' })).body).toMatchObject({
        title: 'T',
        body: 'B',
      });
      expect((await call(noteApp, { method: 'GET', url: '/api/notes' })).body['hydra:member']).toEqual([
        { '@id': '/api/notes/1', '@type': 'Note', id: 1, title: 'T' },
      ]);
      expect(calls).toEqual(['post:0', 'get:0', 'getCollection:0']);
      await noteApp.close();
    });

    it('loads the embedded relations of a whole page with one query per relation, not one per item', async () => {
      for (let i = 1; i <= 4; i++) await post('/api/companies', { name: `Company ${i}` });
      for (let i = 1; i <= 4; i++) await post('/api/categories', { name: `Category ${i}` });
      for (let i = 1; i <= 4; i++) await post('/api/brands', { name: `Brand ${i}`, owner: `/api/companies/${i}` });
      for (let i = 1; i <= 10; i++)
        await post('/api/products', {
          name: `P${i}`,
          price: i,
          category: `/api/categories/${(i % 4) + 1}`,
          brand: `/api/brands/${(i % 4) + 1}`,
        });
      const queries: string[] = [];
      const knex = app().resourceApi.database.knex;
      const listen = (q: { sql: string }) => queries.push(q.sql);
      knex.on('query', listen);
      const response = await call(app(), { method: 'GET', url: '/api/products' });
      knex.off('query', listen);
      expect(response.body['hydra:member']).toHaveLength(10);
      expect(response.body['hydra:member'][9].brand.owner.name).toBe('Company 3');
      // the page with its count and its categories (joined: a Category embeds nothing of its own), then brands,
      // companies and Company.brands ids, one batch each
      expect(queries).toHaveLength(4);
      expect(queries[0]).toMatch(/left join .category. as .t0_e1./i);
    });

    it('embeds the items it joins to the page exactly as it embeds items read apart, with none for a null relation', async () => {
      await seed();
      await post('/api/categories', { name: 'Films' });
      for (const [name, category] of [
        ['Solaris', '/api/categories/2'],
        ['Untitled', null],
        ['Emma', '/api/categories/1'],
      ] as const) {
        expect((await post('/api/products', { name, price: 1, category })).status).toBe(201);
      }
      const page = await call(app(), { method: 'GET', url: '/api/products' });
      expect(page.status).toBe(200);
      for (const member of page.body['hydra:member'] as { '@id': string }[]) {
        // An item's GET reads its embedded items apart, in a batch: the reference.
        const { '@context': _context, ...item } = (await call(app(), { method: 'GET', url: member['@id'] }))
          .body as Record<string, unknown>;
        expect(member).toEqual(item);
      }
      expect(
        page.body['hydra:member'].map((member: { category?: { name: string } }) => member.category?.name ?? null),
      ).toEqual(['Books', 'Films', null, 'Books']);
    });
  },
);

/**
 * The same item embedded under two fields whose plans differ: under one the cycle is cut (its writer an IRI), under
 * the other not; under one it lists its to-many ids, under the other not. Each place gets its own plan's shape,
 * whichever field loaded the item first.
 */
const Writer = defineResource({
  name: 'Writer',
  fields: { name: { type: 'string' }, favourite: { toOne: 'Volume', nullable: true, readableLink: true } },
});
const Volume = defineResource({
  name: 'Volume',
  fields: {
    title: { type: 'string' },
    writer: { toOne: 'Writer', nullable: true, readableLink: true },
    notes: { toMany: 'Note', mappedBy: 'volume' },
  },
});
const Note = defineResource({
  name: 'Note',
  fields: { text: { type: 'string' }, volume: { toOne: 'Volume', nullable: true } },
});
const Critique = defineResource({
  name: 'Critique',
  fields: {
    critic: { toOne: 'Writer', nullable: true, readableLink: true },
    volume: { toOne: 'Volume', nullable: true, readableLink: true },
  },
});

/** A column whose name is near PostgreSQL's limit of 63 bytes, read joined to a page. */
const Imprint = defineResource({
  name: 'Imprint',
  fields: { name: { type: 'string' }, motto: { type: 'string', nullable: true, column: `motto_${'x'.repeat(57)}` } },
});
const Edition = defineResource({
  name: 'Edition',
  fields: { isbn: { type: 'string' }, imprint: { toOne: 'Imprint', nullable: true, readableLink: true } },
});

describe.each(testDatabases(inject('postgresUrl'), inject('mariadbUrl')))(
  'an item embedded under two plans on $name',
  (database) => {
    const app = useApp(database, { resources: [Writer, Volume, Note, Critique, Imprint, Edition] });
    const post = async (url: string, payload: object) =>
      expect((await call(app(), { method: 'POST', url, payload })).status).toBe(201);

    it("embeds it in each place as that place's plan says, on items and on pages", async () => {
      await post('/api/writers', { name: 'Le Guin' });
      await post('/api/volumes', { title: 'The Dispossessed', writer: '/api/writers/1' });
      await post('/api/notes', { text: 'Anarres', volume: '/api/volumes/1' });
      await post('/api/writers', { name: 'A critic', favourite: '/api/volumes/1' });
      await post('/api/critiques', { critic: '/api/writers/2', volume: '/api/volumes/1' });
      await post('/api/critiques', { volume: '/api/volumes/1' });
      const volume = {
        '@id': '/api/volumes/1',
        '@type': 'Volume',
        id: 1,
        title: 'The Dispossessed',
        writer: { '@id': '/api/writers/1', '@type': 'Writer', id: 1, name: 'Le Guin' },
        notes: ['/api/notes/1'],
      };
      const alone = (await call(app(), { method: 'GET', url: '/api/critiques/2' })).body;
      expect(alone.volume).toEqual(volume);
      const both = (await call(app(), { method: 'GET', url: '/api/critiques/1' })).body;
      // Under the critic, the favourite volume's writer is a Writer again: cut to an IRI, with the notes listed.
      expect(both.critic.favourite).toEqual({ ...volume, writer: '/api/writers/1' });
      expect(both.volume).toEqual(volume);
      const page = (await call(app(), { method: 'GET', url: '/api/critiques' })).body;
      expect(page['hydra:member'].map((member: { volume: unknown }) => member.volume)).toEqual([volume, volume]);
    });

    it('embeds every column of an item joined to the page, however long its name', async () => {
      await post('/api/imprints', { name: 'Gollancz', motto: 'Science fiction' });
      await post('/api/editions', { isbn: '978-0', imprint: '/api/imprints/1' });
      const imprint = {
        '@id': '/api/imprints/1',
        '@type': 'Imprint',
        id: 1,
        name: 'Gollancz',
        motto: 'Science fiction',
      };
      expect((await call(app(), { method: 'GET', url: '/api/editions/1' })).body.imprint).toEqual(imprint);
      expect((await call(app(), { method: 'GET', url: '/api/editions' })).body['hydra:member'][0].imprint).toEqual(
        imprint,
      );
    });
  },
);

/** Group names that look like the separators of a cache key: `*`, and names holding control characters. */
const Dossier = defineResource({
  name: 'Dossier',
  fields: {
    title: { type: 'string', groups: ['*', 'a\u0001b', 'a', 'b'] },
    secret: { type: 'string', groups: ['secret'] },
    starred: { type: 'string', groups: ['a\u0001b'] },
    both: { type: 'string', groups: ['a'] },
  },
  operations: [
    { kind: 'getCollection', normalizationGroups: ['*'] },
    'get',
    'post',
    { kind: 'put', normalizationGroups: ['a\u0001b'] },
    { kind: 'patch', normalizationGroups: ['a', 'b'] },
  ],
});

describe.each(testDatabases(inject('postgresUrl'), inject('mariadbUrl')))(
  'groups whatever their names on $name',
  (database) => {
    const app = useApp(database, { resources: [Dossier] });

    it('keeps a group named "*" apart from no groups, and one name holding a separator apart from two names', async () => {
      const payload = { title: 'T', secret: 'S', starred: 'A', both: 'B' };
      expect((await call(app(), { method: 'POST', url: '/api/dossiers', payload })).status).toBe(201);
      const page = await call(app(), { method: 'GET', url: '/api/dossiers' });
      expect(page.body['hydra:member'][0]).toEqual({ '@id': '/api/dossiers/1', '@type': 'Dossier', id: 1, title: 'T' });
      // The item GET declares no groups: every field, although the page's plan (groups ["*"]) was made first.
      expect((await call(app(), { method: 'GET', url: '/api/dossiers/1' })).body).toMatchObject({
        title: 'T',
        secret: 'S',
        starred: 'A',
        both: 'B',
      });
      const put = await call(app(), { method: 'PUT', url: '/api/dossiers/1', payload });
      expect(put.body).toMatchObject({ title: 'T', starred: 'A' });
      expect(put.body.both).toBeUndefined();
      const patch = await call(app(), {
        method: 'PATCH',
        url: '/api/dossiers/1',
        payload: { title: 'T' },
        headers: { 'content-type': 'application/merge-patch+json' },
      });
      expect(patch.body).toMatchObject({ title: 'T', both: 'B' });
      expect(patch.body.starred).toBeUndefined();
    });
  },
);
