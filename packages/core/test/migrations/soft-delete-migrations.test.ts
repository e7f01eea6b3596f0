/**
 * A soft-deleted resource's schema in migrations: its deletion column, and unique indexes that hold the live items only
 * (`where deleted_at is null`), written by `generateMigration` and found again by the next diff.
 */
import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, inject, it } from 'vitest';
import { defineResource, generateMigration, runMigrations, Unique } from '@resource-api/core';
import { testDatabases } from '@resource-api/core/testing';
import { freshTarget, type MigrationTarget, on } from './support.js';

const fields = { name: { type: 'string', constraints: [Unique()] } } as const;
const Tag = defineResource({ name: 'Tag', fields });
const SoftTag = defineResource({ name: 'Tag', softDelete: true, fields });

describe.each(testDatabases(inject('postgresUrl'), inject('mariadbUrl')))(
  'soft delete migrations on $name',
  (database) => {
    let target: MigrationTarget;
    beforeEach(async () => {
      target = await freshTarget(database);
    });
    afterEach(async () => {
      await target.drop();
    });

    it('creates the deletion column and a partial unique index, which the next diff finds', async () => {
      const file = await generateMigration({ resources: [SoftTag], ...on(target) });
      const source = readFileSync(file!, 'utf8');
      // MariaDB has no partial index: a unique one on an invisible generated column, null on deleted items.
      expect(source).toContain(database.name === 'mariadb' ? 'case when ?? is null then ?? end' : 'where ?? is null');
      expect(source).toContain("'tag_name_live_unique'");
      await runMigrations(on(target));
      expect(await generateMigration({ resources: [SoftTag], ...on(target) })).toBeNull();

      // The index holds live rows only: a deleted row's name may come back, two live ones may not.
      const deletedAt = database.name === 'sqlite' ? '2026-01-01T00:00:00.000Z' : new Date();
      await target.knex('tag').insert({ name: 'red', deleted_at: deletedAt });
      await target.knex('tag').insert({ name: 'red', deleted_at: deletedAt });
      await target.knex('tag').insert({ name: 'red' });
      await expect(target.knex('tag').insert({ name: 'red' })).rejects.toThrow(/unique|duplicate/i);
    });

    it('adds the column and the partial index when a resource turns soft delete on', async () => {
      await generateMigration({ resources: [Tag], ...on(target) });
      await runMigrations(on(target));
      const file = await generateMigration({ resources: [SoftTag], ...on(target), name: 'soft_tags' });
      const source = readFileSync(file!, 'utf8');
      expect(source).toMatch(/deleted_at/);
      expect(source).toContain("'tag_name_live_unique'");
      await runMigrations(on(target));
      expect(await generateMigration({ resources: [SoftTag], ...on(target) })).toBeNull();
    });
  },
);
