/**
 * Schema sync and generated migrations come from one description of the schema: a database made by either needs
 * nothing from the other, and both make the same tables, columns, indexes and foreign keys. Also the one step that
 * rebuilds a table on SQLite: a foreign key missing on an existing relation column (as older versions of sync left).
 */
import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, inject, it } from 'vitest';
import { defineResource, generateMigration, rollbackMigrations, runMigrations, Unique } from '@resource-api/core';
import { injectJson, testDatabases } from '@resource-api/core/testing';
import { openDatabase } from '../../src/state/database.js';
import { readLiveSchema } from '../../src/state/migrations/live-schema.js';
import { freshTarget, type MigrationTarget, on, startApp } from './support.js';

const Tag = defineResource({
  name: 'Tag',
  fields: { label: { type: 'string', constraints: [Unique()] }, posts: { toMany: 'Post', mappedBy: 'tags' } },
});
const Post = defineResource({
  name: 'Post',
  filters: [
    { type: 'order', properties: ['publishedAt'] },
    { type: 'search', properties: { 'writer.name': 'exact', slug: 'exact' } },
    { type: 'range', properties: ['score'] },
  ],
  constraints: [Unique({ fields: ['writer', 'slug'] })],
  fields: {
    slug: { type: 'string' },
    score: { type: 'float', nullable: true },
    publishedAt: { type: 'datetime', nullable: true },
    day: { type: 'date', nullable: true },
    meta: { type: 'json', nullable: true },
    labels: { type: 'string[]', default: [] },
    draft: { type: 'boolean', default: true },
    writer: { toOne: 'Writer', onDelete: 'cascade' },
    parent: { toOne: 'Post', nullable: true, onDelete: 'set null' },
    tags: { toMany: 'Tag', inversedBy: 'posts' },
  },
});
const Writer = defineResource({ name: 'Writer', fields: { name: { type: 'string' } } });
const RESOURCES = [Tag, Post, Writer];
const TABLES = ['tag', 'post', 'writer', 'post_tags'];

/** Tables, columns (with nullability), indexes (by columns) and foreign keys, in a comparable form. */
async function schemaOf(target: MigrationTarget) {
  const database = await openDatabase({
    url: target.database,
    ...(target.databaseSchema ? { schema: target.databaseSchema } : {}),
  });
  try {
    const live = await readLiveSchema(database, TABLES);
    return Object.fromEntries(
      [...live.tables].map(([name, table]) => [
        name,
        {
          columns: Object.fromEntries([...table.columns].map(([column, { nullable }]) => [column, nullable])),
          indexes: table.indexes.map((i) => `${i.unique ? 'unique ' : ''}(${i.columns.join(', ')})`).sort(),
          foreignKeys: table.foreignKeys.map((k) => `${k.column} → ${k.table}`).sort(),
        },
      ]),
    );
  } finally {
    await database.close();
  }
}

describe.each(testDatabases(inject('postgresUrl'), inject('mariadbUrl')))(
  'schema sync and migrations on $name',
  (database) => {
    let synced: MigrationTarget;
    let migrated: MigrationTarget;
    beforeEach(async () => {
      synced = await freshTarget(database);
      migrated = await freshTarget(database);
    });
    afterEach(async () => {
      await synced.drop();
      await migrated.drop();
    });

    it('make the same schema, and a database made by either needs nothing from the other', async () => {
      await (await startApp(synced, RESOURCES, { schemaSync: true })).close();
      expect(await generateMigration({ resources: RESOURCES, ...on(synced) })).toBeNull();

      await generateMigration({ resources: RESOURCES, ...on(migrated) });
      await runMigrations(on(migrated));
      const schema = await schemaOf(migrated);
      expect(schema).toEqual(await schemaOf(synced));
      expect(Object.keys(schema).sort()).toEqual([...TABLES].sort());
      expect(schema.post!.foreignKeys).toEqual(['parent_id → post', 'writer_id → writer']);
      expect(schema.post!.indexes).toEqual(
        expect.arrayContaining([
          '(parent_id)',
          '(published_at)',
          '(score)',
          '(slug)',
          'unique (writer_id, slug)',
          '(writer_id)',
        ]),
      );
      expect(schema.post_tags!.foreignKeys).toEqual(['post_id → post', 'tag_id → tag']);
      expect(schema.tag!.indexes).toContain('unique (label)');

      // Sync on the migrated database has nothing to do, and the API works on it.
      const app = await startApp(migrated, RESOURCES, { schemaSync: true });
      expect(await schemaOf(migrated)).toEqual(schema);
      expect((await injectJson(app, { method: 'POST', url: '/api/writers', payload: { name: 'Ann' } })).status).toBe(
        201,
      );
      expect((await injectJson(app, { method: 'POST', url: '/api/tags', payload: { label: 'news' } })).status).toBe(
        201,
      );
      const post = await injectJson(app, {
        method: 'POST',
        url: '/api/posts',
        payload: {
          slug: 'a',
          writer: '/api/writers/1',
          tags: ['/api/tags/1'],
          publishedAt: '2024-05-01T10:00:00+00:00',
          meta: { a: [1] },
        },
      });
      expect(post.status).toBe(201);
      expect(post.body).toMatchObject({
        slug: 'a',
        writer: '/api/writers/1',
        tags: ['/api/tags/1'],
        publishedAt: '2024-05-01T10:00:00+00:00',
        meta: { a: [1] },
        labels: [],
        draft: true,
      });
      // The unique index backs the Unique constraint: a second post with the same writer and slug is refused.
      expect(
        (await injectJson(app, { method: 'POST', url: '/api/posts', payload: { slug: 'a', writer: '/api/writers/1' } }))
          .status,
      ).toBe(400);
      await app.close();
    });

    it('adds the foreign key an existing relation column lacks, keeping the rows of the table and of those pointing at it', async () => {
      const Owner = defineResource({ name: 'Owner', fields: { name: { type: 'string' } } });
      const Pet = defineResource({
        name: 'Pet',
        fields: { name: { type: 'string' }, owner: { toOne: 'Owner', nullable: true, onDelete: 'cascade' } },
      });
      const Visit = defineResource({
        name: 'Visit',
        fields: { note: { type: 'string' }, pet: { toOne: 'Pet', onDelete: 'cascade' } },
      });
      const { knex } = migrated;
      // As sync used to leave it on SQLite: the relation column and its index, without the foreign key. Unsigned, the
      // type of an increments key on MariaDB (a foreign key needs the same type; SQLite and PostgreSQL ignore it).
      await knex.schema.createTable('owner', (t) => {
        t.increments('id').primary();
        t.text('name').notNullable();
      });
      await knex.schema.createTable('pet', (t) => {
        t.increments('id').primary();
        t.text('name').notNullable();
        t.integer('owner_id').unsigned().nullable().index('pet_owner_id_index');
      });
      await knex.schema.createTable('visit', (t) => {
        t.increments('id').primary();
        t.text('note').notNullable();
        t.integer('pet_id').unsigned().notNullable().index('visit_pet_id_index');
        t.foreign('pet_id').references('id').inTable('pet').onDelete('CASCADE');
      });
      await knex('owner').insert({ name: 'Ann' });
      await knex('pet').insert({ name: 'Rex', owner_id: 1 });
      await knex('visit').insert({ note: 'Shots.', pet_id: 1 });

      const file = await generateMigration({ resources: [Owner, Pet, Visit], ...on(migrated) });
      const source = readFileSync(file!, 'utf8');
      expect(source).toContain("table.foreign('owner_id').references('id').inTable('owner').onDelete('CASCADE');");
      expect(source).toContain("table.dropForeign(['owner_id']);");
      expect(source.includes('export const config = { transaction: false };')).toBe(database.name === 'sqlite');

      await runMigrations(on(migrated));
      const keys =
        database.name === 'sqlite'
          ? await knex.raw('select "table" from pragma_foreign_key_list(\'pet\')')
          : database.name === 'mariadb'
            ? (
                await knex.raw(
                  'select referenced_table_name as "table" from information_schema.key_column_usage where table_schema = database() and table_name = \'pet\' and referenced_table_name is not null',
                )
              )[0]
            : (
                await knex.raw(
                  "select ccu.table_name as table from information_schema.constraint_column_usage ccu join information_schema.table_constraints tc using (constraint_schema, constraint_name) where tc.table_name = 'pet' and tc.constraint_type = 'FOREIGN KEY' and tc.table_schema = current_schema()",
                )
              ).rows;
      expect(keys).toEqual([{ table: 'owner' }]);
      expect(await knex('visit').pluck('note')).toEqual(['Shots.']);
      expect(await generateMigration({ resources: [Owner, Pet, Visit], ...on(migrated) })).toBeNull();
      // The foreign key works: deleting the owner takes the pet, and the pet's visits with it.
      await knex('owner').where('id', 1).delete();
      expect(await knex('pet').pluck('name')).toEqual([]);
      expect(await knex('visit').pluck('note')).toEqual([]);

      await knex('owner').insert({ id: 2, name: 'Bo' });
      await knex('pet').insert({ id: 2, name: 'Tom', owner_id: 2 });
      await knex('visit').insert({ note: 'Teeth.', pet_id: 2 });
      await rollbackMigrations(on(migrated));
      expect(await knex('pet').pluck('name')).toEqual(['Tom']);
      expect(await knex('visit').pluck('note')).toEqual(['Teeth.']);
      await knex('owner').where('id', 2).delete();
      expect(await knex('pet').pluck('name')).toEqual(['Tom']);
    });
  },
);
