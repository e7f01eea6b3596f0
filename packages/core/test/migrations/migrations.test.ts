/**
 * Migrations end to end: generate a knex migration from the declarations, run it with knex's migrator, start the API
 * on the result with schema sync off (as in production), change the declarations on a table with rows, and undo.
 */
import { basename } from 'node:path';
import { readFileSync } from 'node:fs';
import type { Knex } from 'knex';
import { afterEach, beforeEach, describe, expect, inject, it } from 'vitest';
import {
  defineResource,
  generateMigration,
  type ResourceInput,
  rollbackMigrations,
  runMigrations,
  SchemaNotMigratedError,
} from '@resource-api/core';
import { injectJson, testDatabases } from '@resource-api/core/testing';
import { freshTarget, type MigrationTarget, on, startApp, withNodeEnv } from './support.js';

const Author = defineResource({ name: 'Author', fields: { name: { type: 'string' } } });
const Review = defineResource({
  name: 'Review',
  fields: { text: { type: 'string' }, book: { toOne: 'Book', onDelete: 'cascade' } },
});
const BookV1 = defineResource({ name: 'Book', fields: { title: { type: 'string' }, author: { toOne: 'Author' } } });
/** The next version: a new field and a new to-one relation (to a new resource) on a table that has rows. */
const BookV2 = defineResource({
  name: 'Book',
  fields: {
    title: { type: 'string' },
    author: { toOne: 'Author' },
    isbn: { type: 'string', nullable: true },
    publisher: { toOne: 'Publisher', nullable: true, onDelete: 'set null' },
  },
});
const Publisher = defineResource({ name: 'Publisher', fields: { name: { type: 'string' } } });

const V1 = [Author, BookV1, Review];
const V2 = [Author, BookV2, Review, Publisher];

const json = { 'content-type': 'application/ld+json' };
/** `count(*)` of a query, as a number (PostgreSQL returns a bigint as a string). */
const count = async (query: Knex.QueryBuilder): Promise<number> =>
  Number(((await query.count({ n: '*' })) as { n: number | string }[])[0]!.n);

describe.each(testDatabases(inject('postgresUrl'), inject('mariadbUrl')))('migrations on $name', (database) => {
  let target: MigrationTarget;
  beforeEach(async () => {
    target = await freshTarget(database);
  });
  afterEach(async () => {
    await target.drop();
  });

  it('creates the tables of an empty database with a generated migration, which the API then works on', async () => {
    const file = await generateMigration({ resources: V1, ...on(target) });
    expect(basename(file!)).toMatch(/^\d{14}_create_author_book_review\.mjs$/);
    const source = readFileSync(file!, 'utf8');
    expect(source).toContain("await knex.schema.createTable('book', (table) => {");
    expect(source).toContain("table.increments('id').primary();");
    // MariaDB's TEXT holds 64 KiB: text is MEDIUMTEXT there (docs/database.md).
    expect(source).toContain(
      database.name === 'mariadb'
        ? "table.specificType('title', 'mediumtext').notNullable();"
        : "table.text('title').notNullable();",
    );
    expect(source).toContain("table.index(['author_id'], 'book_author_id_index');");
    expect(source).toContain("await knex.schema.dropTable('book');");
    expect(await target.knex.schema.hasTable('book')).toBe(false);

    expect(await runMigrations(on(target))).toEqual([basename(file!)]);
    expect(await runMigrations(on(target))).toEqual([]);

    const app = await startApp(target, V1);
    expect(
      (
        await injectJson(app, {
          method: 'POST',
          url: '/api/authors',
          headers: json,
          payload: { name: 'Frank Herbert' },
        })
      ).status,
    ).toBe(201);
    const created = await injectJson(app, {
      method: 'POST',
      url: '/api/books',
      headers: json,
      payload: { title: 'Dune', author: '/api/authors/1' },
    });
    expect(created.status).toBe(201);
    expect((await injectJson(app, { method: 'GET', url: '/api/books/1' })).body).toEqual({
      '@context': '/api/contexts/Book',
      '@id': '/api/books/1',
      '@type': 'Book',
      id: 1,
      title: 'Dune',
      author: '/api/authors/1',
    });
    // The foreign key is there: a book of an author that does not exist is refused, and nothing is written.
    expect(
      (
        await injectJson(app, {
          method: 'POST',
          url: '/api/books',
          headers: json,
          payload: { title: 'Lost', author: '/api/authors/9' },
        })
      ).status,
    ).toBe(400);
    await expect(target.knex('book').insert({ title: 'Lost', author_id: 9 })).rejects.toThrow(/foreign key/i);
    expect(await count(target.knex('book'))).toBe(1);
    await app.close();

    expect(await generateMigration({ resources: V1, ...on(target) })).toBeNull();
  });

  it('adds a field and a to-one relation to a table with rows; the rows stay, the relation is enforced, down takes it back', async () => {
    await generateMigration({ resources: V1, ...on(target) });
    await runMigrations(on(target));
    const v1 = await startApp(target, V1);
    await injectJson(v1, { method: 'POST', url: '/api/authors', headers: json, payload: { name: 'Frank Herbert' } });
    await injectJson(v1, {
      method: 'POST',
      url: '/api/books',
      headers: json,
      payload: { title: 'Dune', author: '/api/authors/1' },
    });
    await injectJson(v1, {
      method: 'POST',
      url: '/api/reviews',
      headers: json,
      payload: { text: 'Sandy.', book: '/api/books/1' },
    });
    const dune = (await injectJson(v1, { method: 'GET', url: '/api/books/1' })).body;
    await v1.close();

    const file = await generateMigration({ resources: V2, ...on(target), name: 'Add book publisher' });
    expect(basename(file!)).toMatch(/^\d{14}_add_book_publisher\.mjs$/);
    const source = readFileSync(file!, 'utf8');
    expect(source).toContain('//   add column book.isbn');
    expect(source).toContain('//   add column book.publisher_id');
    expect(source).toContain(".schema.createTable('publisher', (table) => {");
    expect(source).toMatch(
      database.name === 'mariadb'
        ? /\.schema\.alterTable\('book', \(table\) => \{\n\s+table\.specificType\('isbn', 'mediumtext'\)\.nullable\(\);\n\s+\}\);/
        : /\.schema\.alterTable\('book', \(table\) => \{\n\s+table\.text\('isbn'\)\.nullable\(\);\n\s+\}\);/,
    );
    if (database.name === 'sqlite') {
      // In place, not knex's table rebuild: the relation column with its REFERENCES clause.
      expect(source).toContain(
        ".raw('alter table ?? add column ?? integer references ?? (??) on delete set null', ['book', 'publisher_id', 'publisher', 'id']);",
      );
      // Dropping a column rebuilds the table on SQLite: the file runs outside a transaction, its up in one of its own.
      expect(source).toContain('export const config = { transaction: false };');
      expect(source).toContain('await knex.transaction(async (trx) => {');
    } else {
      // MariaDB: the reference has the unsigned type of the AUTO_INCREMENT key it points at.
      const column =
        database.name === 'mariadb'
          ? "table.specificType('publisher_id', 'int unsigned')"
          : "table.integer('publisher_id')";
      expect(source).toContain(
        `${column}.nullable();\n    table.foreign('publisher_id').references('id').inTable('publisher').onDelete('SET NULL');`,
      );
      expect(source).not.toContain('transaction: false');
    }
    expect(source).toContain("table.dropColumn('publisher_id');");
    expect(source).toContain("await knex.schema.dropTable('publisher');");

    expect(await runMigrations(on(target))).toEqual([basename(file!)]);
    const v2 = await startApp(target, V2);
    // The rows written before are intact.
    expect((await injectJson(v2, { method: 'GET', url: '/api/books/1' })).body).toEqual(dune);
    expect((await injectJson(v2, { method: 'GET', url: '/api/reviews/1' })).body).toMatchObject({
      text: 'Sandy.',
      book: '/api/books/1',
    });
    // The new field and relation work through the API.
    expect(
      (await injectJson(v2, { method: 'POST', url: '/api/publishers', headers: json, payload: { name: 'Chilton' } }))
        .status,
    ).toBe(201);
    const book = {
      title: 'Dune Messiah',
      author: '/api/authors/1',
      isbn: '978-0441172696',
      publisher: '/api/publishers/1',
    };
    const created = await injectJson(v2, { method: 'POST', url: '/api/books', headers: json, payload: book });
    expect(created.status).toBe(201);
    const expected = { '@context': '/api/contexts/Book', '@id': '/api/books/2', '@type': 'Book', id: 2, ...book };
    expect(created.body).toEqual(expected);
    expect((await injectJson(v2, { method: 'GET', url: '/api/books/2' })).body).toEqual(expected);
    const patched = await injectJson(v2, {
      method: 'PATCH',
      url: '/api/books/1',
      headers: { 'content-type': 'application/merge-patch+json' },
      payload: { publisher: '/api/publishers/1' },
    });
    expect(patched.body).toEqual({ ...dune, publisher: '/api/publishers/1' });
    // A relation to a publisher that does not exist: 400, nothing written; in the database, the foreign key refuses it.
    const unknown = await injectJson(v2, {
      method: 'POST',
      url: '/api/books',
      headers: json,
      payload: { ...book, publisher: '/api/publishers/9' },
    });
    expect(unknown.status).toBe(400);
    expect(await count(target.knex('book'))).toBe(2);
    await expect(target.knex('book').where('id', 1).update({ publisher_id: 9 })).rejects.toThrow(/foreign key/i);
    // ON DELETE SET NULL is the database's: deleting the publisher leaves both books without one.
    expect((await injectJson(v2, { method: 'DELETE', url: '/api/publishers/1' })).status).toBe(204);
    expect((await injectJson(v2, { method: 'GET', url: '/api/books/2' })).body).toEqual({
      ...expected,
      publisher: undefined,
    });
    expect(await count(target.knex('book').whereNotNull('publisher_id'))).toBe(0);
    await v2.close();

    expect(await generateMigration({ resources: V2, ...on(target) })).toBeNull();

    // Down: the column, the relation and the table are gone; every row is still there, the reviews pointing at books too.
    expect(await rollbackMigrations(on(target))).toEqual([basename(file!)]);
    expect(Object.keys(await target.knex('book').columnInfo()).sort()).toEqual(['author_id', 'id', 'title']);
    expect(await target.knex.schema.hasTable('publisher')).toBe(false);
    expect(await target.knex('book').orderBy('id').pluck('title')).toEqual(['Dune', 'Dune Messiah']);
    expect(await target.knex('review').pluck('text')).toEqual(['Sandy.']);
    const back = await withNodeEnv('production', () => startApp(target, V1, { schemaSync: undefined }));
    expect((await injectJson(back, { method: 'GET', url: '/api/books/1' })).body).toEqual(dune);
    await back.close();
  });

  it('refuses to start in production on a database that lacks the schema, and starts once the migrations ran', async () => {
    const production = (resources: readonly ResourceInput[]) =>
      withNodeEnv('production', () => startApp(target, resources, { schemaSync: undefined }));
    const refused = production(V1);
    await expect(refused).rejects.toBeInstanceOf(SchemaNotMigratedError);
    await expect(refused).rejects.toThrow(
      /lacks what the resources need \(create table author; create table book; create table review\).*run the migrations/,
    );
    // Start created nothing.
    expect(await target.knex.schema.hasTable('author')).toBe(false);

    await generateMigration({ resources: V1, ...on(target) });
    await runMigrations(on(target));
    const app = await production(V1);
    expect((await injectJson(app, { method: 'GET', url: '/api/authors' })).status).toBe(200);
    await app.close();

    // The next version of the declarations, before its migration: refused, with what is missing.
    await expect(production(V2)).rejects.toThrow(
      /create table publisher; add column book\.isbn; add column book\.publisher_id/,
    );
    expect(Object.keys(await target.knex('book').columnInfo())).not.toContain('isbn');
    // schemaSync: false refuses the same way outside production; schemaSync: true creates what is missing.
    await expect(startApp(target, V2, { schemaSync: false })).rejects.toBeInstanceOf(SchemaNotMigratedError);
    const synced = await withNodeEnv('production', () => startApp(target, V2, { schemaSync: true }));
    await synced.close();
    expect(Object.keys(await target.knex('book').columnInfo())).toContain('isbn');
  });

  it('refuses to generate while migrations of the folder have not run on the database', async () => {
    const first = await generateMigration({ resources: V1, ...on(target) });
    await expect(generateMigration({ resources: V2, ...on(target) })).rejects.toThrow(
      `1 migration(s) of ${target.directory} have not run on this database (${basename(first!)})`,
    );
    await expect(runMigrations({ ...on(target), directory: `${target.directory}-missing` })).rejects.toThrow(
      /There is no migrations folder at .*-missing/,
    );
    expect(await target.knex.schema.hasTable('author')).toBe(false);
  });
});
