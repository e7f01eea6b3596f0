/** Development schema sync: tables, columns, foreign keys and indexes from the metadata; new columns (relations too) added later. */
import { describe, expect, inject, it } from 'vitest';
import { defineResource } from '@resource-api/core';
import { buildTestApp, testDatabases } from '@resource-api/core/testing';
import { Author, Book } from '../fixtures.js';
import { call } from '../helpers.js';

describe.each(testDatabases(inject('postgresUrl'), inject('mariadbUrl')))('schema sync on $name', (database) => {
  it('creates tables with snake_case columns, NOT NULL where required, and a foreign key with an index', async () => {
    const app = await buildTestApp({ database, resources: [Author, Book] });
    const { knex } = app.resourceApi.database;
    const columns = await knex('book').columnInfo();
    expect(Object.keys(columns).sort()).toEqual(
      [
        'author_id',
        'available',
        'created_at',
        'extra',
        'id',
        'isbn',
        'pages',
        'price',
        'published_at',
        'release_date',
        'summary',
        'tags',
        'title',
      ].sort(),
    );
    expect(columns.title!.nullable).toBe(false);
    expect(columns.summary!.nullable).toBe(true);
    if (database.name === 'postgres') {
      expect(columns.published_at!.type).toBe('timestamp with time zone');
      expect(columns.tags!.type).toBe('jsonb');
      const indexes = await knex.raw(
        "select indexdef from pg_indexes where tablename = 'book' and schemaname = current_schema()",
      );
      expect(indexes.rows.map((r: { indexdef: string }) => r.indexdef).join('\n')).toMatch(/\(author_id\)/);
      const fks = await knex.raw(
        "select count(*)::int as n from information_schema.table_constraints where table_name = 'book' and constraint_type = 'FOREIGN KEY' and table_schema = current_schema()",
      );
      expect(fks.rows[0].n).toBe(1);
    } else if (database.name === 'mariadb') {
      expect(columns.published_at!.type).toBe('datetime');
      const [fks] = await knex.raw(
        'select column_name as "from", referenced_table_name as "table", referenced_column_name as "to" from information_schema.key_column_usage where table_schema = database() and table_name = \'book\' and referenced_table_name is not null',
      );
      expect(fks).toEqual([{ table: 'author', from: 'author_id', to: 'id' }]);
      const [indexes] = await knex.raw(
        "select index_name as name from information_schema.statistics where table_schema = database() and table_name = 'book' and column_name = 'author_id'",
      );
      expect(indexes.length).toBeGreaterThan(0);
    } else {
      const fks = await knex.raw("select * from pragma_foreign_key_list('book')");
      expect(fks).toEqual([expect.objectContaining({ table: 'author', from: 'author_id', to: 'id' })]);
      const indexes = await knex.raw("select * from pragma_index_list('book')");
      expect(indexes.length).toBeGreaterThan(0);
    }
    await app.close();
  });

  it('adds a column declared later to an existing table, keeping its rows', async () => {
    const v1 = defineResource({ name: 'Pet', fields: { name: { type: 'string' } } });
    const v2 = defineResource({
      name: 'Pet',
      fields: { name: { type: 'string' }, age: { type: 'integer', nullable: true } },
    });
    const app = await buildTestApp({ database, resources: [v1] });
    await call(app, { method: 'POST', url: '/api/pets', payload: { name: 'Rex' } });
    // Same database, new declaration: sync again through a second plugin instance on the same knex.
    const { knex } = app.resourceApi.database;
    const Fastify = (await import('fastify')).default;
    const { resourceApi } = await import('@resource-api/core');
    const second = Fastify();
    await second.register(resourceApi, { resources: [v2], database: knex });
    expect((await call(second, { method: 'GET', url: '/api/pets/1' })).body).toEqual({
      '@context': '/api/contexts/Pet',
      '@id': '/api/pets/1',
      '@type': 'Pet',
      id: 1,
      name: 'Rex',
    });
    expect(
      (
        await call(second, {
          method: 'PATCH',
          url: '/api/pets/1',
          headers: { 'content-type': 'application/merge-patch+json' },
          payload: '{"age": 3}',
        })
      ).body.age,
    ).toBe(3);
    await second.close();
    await app.close();
  });

  it('adds a relation declared later to an existing table with its foreign key and index, on SQLite too', async () => {
    const Owner = defineResource({ name: 'Owner', fields: { name: { type: 'string' } } });
    const v1 = defineResource({ name: 'Pet', fields: { name: { type: 'string' } } });
    const v2 = defineResource({
      name: 'Pet',
      fields: { name: { type: 'string' }, owner: { toOne: 'Owner', nullable: true, onDelete: 'cascade' } },
    });
    const app = await buildTestApp({ database, resources: [v1] });
    await call(app, { method: 'POST', url: '/api/pets', payload: { name: 'Rex' } });
    const { knex } = app.resourceApi.database;
    const Fastify = (await import('fastify')).default;
    const { resourceApi } = await import('@resource-api/core');
    const second = Fastify();
    await second.register(resourceApi, { resources: [v2, Owner], database: knex });
    expect((await call(second, { method: 'GET', url: '/api/pets/1' })).body).toEqual({
      '@context': '/api/contexts/Pet',
      '@id': '/api/pets/1',
      '@type': 'Pet',
      id: 1,
      name: 'Rex',
    });
    expect((await call(second, { method: 'POST', url: '/api/owners', payload: { name: 'Ann' } })).status).toBe(201);
    const patched = await call(second, {
      method: 'PATCH',
      url: '/api/pets/1',
      headers: { 'content-type': 'application/merge-patch+json' },
      payload: '{"owner": "/api/owners/1"}',
    });
    expect(patched.body.owner).toBe('/api/owners/1');
    await expect(knex('pet').where('id', 1).update({ owner_id: 7 })).rejects.toThrow(/foreign key/i);
    // ON DELETE CASCADE is the database's own: the pet goes with its owner.
    expect((await call(second, { method: 'DELETE', url: '/api/owners/1' })).status).toBe(204);
    expect((await call(second, { method: 'GET', url: '/api/pets/1' })).status).toBe(404);
    const indexes =
      database.name === 'postgres'
        ? (
            await knex.raw(
              "select indexname as name from pg_indexes where tablename = 'pet' and schemaname = current_schema()",
            )
          ).rows
        : database.name === 'mariadb'
          ? (
              await knex.raw(
                "select index_name as name from information_schema.statistics where table_schema = database() and table_name = 'pet'",
              )
            )[0]
          : await knex.raw("select name from pragma_index_list('pet')");
    expect(indexes.map((i: { name: string }) => i.name)).toContain('pet_owner_id_index');
    await second.close();
    await app.close();
  });
});
