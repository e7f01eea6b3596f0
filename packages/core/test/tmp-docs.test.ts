import { writeFileSync } from 'node:fs';
import Fastify from 'fastify';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { buildMetadata, defineResource, resourceApi, ApiProperty, ApiResource, type Entity } from '@resource-api/core';
import { buildTestApp } from '@resource-api/core/testing';
import { call } from './helpers.js';

const out: unknown[] = [];
const sqlite = { name: 'sqlite' as const, url: 'sqlite::memory:' };
afterAll(() => writeFileSync('/tmp/docs-out/r4.json', JSON.stringify(out, null, 1)));
const tryBuild = (label: string, resources: any[], extra: any = {}) => {
  try { buildMetadata({ resources, ...extra }); out.push({ label, ok: true }); } catch (e) { out.push({ label, error: (e as Error).message }); }
};
const author = { name: 'Author', fields: { name: { type: 'string' }, books: { toMany: 'Book', mappedBy: 'author' } } } as any;
const book = (fields: any, extra: any = {}) => ({ name: 'Book', fields, ...extra });

describe('errors', () => {
  it('declarations', async () => {
    // listed in the current doc
    tryBuild('target', [author, book({ author: { toOne: 'Autor' } })]);
    tryBuild('nulable', [book({ title: { type: 'string', nulable: true } })]);
    tryBuild('strng', [book({ title: { type: 'strng' } })]);
    tryBuild('tpye', [book({ title: { tpye: 'string' } })]);
    tryBuild('no type', [book({ title: {} })]);
    tryBuild('operation', [book({}, { operation: [] })]);
    tryBuild('paginationItemz', [book({}, { paginationItemzPerPage: 3 })]);
    tryBuild('getCollecton', [book({}, { operations: ['getCollecton'] })]);
    tryBuild('descripton', [book({}, { operations: [{ kind: 'get', descripton: 'x' }] })]);
    tryBuild('twice', [book({}, { operations: ['get', 'get'] })]);
    tryBuild('bokks', [{ name: 'Author', fields: { books: { type: 'string' } } }, book({ author: { toOne: 'Author', inversedBy: 'bokks' } })]);
    tryBuild('bokks2', [author, book({ author: { toOne: 'Author', inversedBy: 'bokks' } })]);
    tryBuild('mapedBy', [{ name: 'Author', fields: { books: { toMany: 'Book', mapedBy: 'author' } } }, book({ author: { toOne: 'Author' } })]);
    tryBuild('mappedBy not to-one', [author, book({ author: { type: 'string' } })]);
    tryBuild('mappedBy missing', [{ name: 'Author', fields: { books: { toMany: 'Book', mappedBy: 'autor' } } }, book({ author: { toOne: 'Author' } })]);
    tryBuild('writable inverse', [{ name: 'Author', fields: { books: { toMany: 'Book', mappedBy: 'author', writable: true } } }, book({ author: { toOne: 'Author' } })]);
    tryBuild('joinTable inverse', [{ name: 'Tag', fields: { books: { toMany: 'Book', mappedBy: 'tags', joinTable: 'x' } } }, book({ tags: { toMany: 'Tag' } })]);
    tryBuild('inversedBy inverse', [{ name: 'Tag', fields: { books: { toMany: 'Book', mappedBy: 'tags', inversedBy: 'tags' } } }, book({ tags: { toMany: 'Tag' } })]);
    tryBuild('m2m inversedBy wrong', [{ name: 'Tag', fields: { books: { toMany: 'Book' } } }, book({ tags: { toMany: 'Tag', inversedBy: 'books' } })]);
    tryBuild('m2m inversedBy ok', [{ name: 'Tag', fields: { books: { toMany: 'Book', mappedBy: 'tags' } } }, book({ tags: { toMany: 'Tag', inversedBy: 'books' } })]);
    tryBuild('inverse of inverse', [{ name: 'Tag', fields: { books: { toMany: 'Book', mappedBy: 'tags' } } }, book({ tags: { toMany: 'Tag', mappedBy: 'books' } })]);
    tryBuild('onDelete', [author, book({ author: { toOne: 'Author', onDelete: 'cascad' } })]);
    tryBuild('set null', [author, book({ author: { toOne: 'Author', onDelete: 'set null' } })]);
    tryBuild('id', [book({ id: { type: 'integer' } })]);
    tryBuild('many', [book({ pages: { type: 'integer', default: 'many' } })]);
    tryBuild('null default', [book({ pages: { type: 'integer', default: null } })]);
    tryBuild('pw readable', [book({ secret: { type: 'password', readable: true } })]);
    tryBuild('col', [book({ a: { type: 'string', column: 'x' }, b: { type: 'string', column: 'x' } })]);
    tryBuild('lower', [{ name: 'book', fields: {} }]);
    tryBuild('dup', [author, { ...author }]);
    tryBuild('path', [{ name: 'Book', fields: {} }, { name: 'Novel', plural: 'books', fields: {} }]);
    tryBuild('table', [{ name: 'Book', fields: {} }, { name: 'Novel', table: 'book', fields: {} }]);
    tryBuild('reserved', [{ name: 'Context', fields: {} }]);
    class Plain {}
    tryBuild('plain', [Plain]);
    class NotAResource {}
    try {
      @ApiResource() class Review { @ApiProperty({ toOne: () => NotAResource }) subject!: unknown; }
      tryBuild('not resource', [Review]);
    } catch (e) { out.push({ label: 'nr', error: (e as Error).message }); }
    // new
    tryBuild('groups bad', [book({ title: { type: 'string', groups: 'read' } })]);
    tryBuild('groups empty str', [book({ title: { type: 'string', groups: [''] } })]);
    tryBuild('normGroups bad', [book({ title: { type: 'string' } }, { normalizationGroups: 'read' })]);
    tryBuild('normGroups bad no ops', [book({ title: { type: 'string' } }, { normalizationGroups: 'read', operations: [] })]);
    tryBuild('op denormGroups bad', [book({ title: { type: 'string' } }, { operations: [{ kind: 'post', denormalizationGroups: [1] }] })]);
    tryBuild('maxDepth', [author, book({ author: { toOne: 'Author' } }), { name: 'X', fields: { books: { toMany: 'Book', subresource: { maxDepth: 0 } } } }]);
    tryBuild('subresource on toOne', [author, book({ author: { toOne: 'Author', subresource: true } })]);
    tryBuild('column on toMany', [book({ tags: { toMany: 'Book', column: 'x' } })]);
    tryBuild('nullable on toMany', [book({ tags: { toMany: 'Book', nullable: true } })]);
    tryBuild('immutable on toMany', [book({ tags: { toMany: 'Book', immutable: true } })]);
    tryBuild('readableLink bad', [book({ tags: { toMany: 'Book', readableLink: 'yes' } })]);
    tryBuild('cascadePersist toMany', [book({ tags: { toMany: 'Book', cascadePersist: true } })]);
    tryBuild('readableLink on scalar', [book({ t: { type: 'string', readableLink: true } })]);
    tryBuild('mappedBy not string', [book({ tags: { toMany: 'Book', mappedBy: 5 } })]);
    tryBuild('misplaced pag', [book({}, { operations: [{ kind: 'get', paginationItemsPerPage: 5 }] })]);
    tryBuild('fields list', [{ name: 'Book', fields: [] }]);
    tryBuild('date default', [book({ on: { type: 'date', default: '2021-02-30' } })]);
    tryBuild('datetime default', [book({ at: { type: 'datetime', default: '2021-02-03T10:00:00' } })]);
    tryBuild('order bad', [book({ t: { type: 'string' } }, { order: { t: 'up' } })]);
    for (const url of ['mysql://root:secret@localhost/db', 'sqlite:']) {
      const app = Fastify();
      try { await app.register(resourceApi, { resources: [book({})], database: url }); await app.ready(); out.push({ label: url, ok: true }); } catch (e) { out.push({ label: url, error: (e as Error).message }); }
      await app.close().catch(() => {});
    }
  });

  it('custom processor nested', async () => {
    let got: any;
    const Author = defineResource({ name: 'Author', fields: { name: { type: 'string' } } });
    const Book = defineResource({ name: 'Book', fields: { title: { type: 'string' }, author: { toOne: 'Author', cascadePersist: true } }, operations: ['get', { kind: 'post', processor: { process: async (data) => { got = data; return { id: 1, title: 't', author: null }; } } }] });
    const app = await buildTestApp({ database: sqlite, resources: [Author, Book] });
    const r = await call(app, { method: 'POST', url: '/api/books', payload: { title: 'T', author: { name: 'N' } } });
    out.push({ label: 'custom processor nested', status: r.status, got: String(got.author?.constructor?.name), data: JSON.stringify(got) });
    await app.close();
  });

  it('pg fk added column', async () => {
    const url = inject('postgresUrl');
    const schema = 'tmpdocs_' + Date.now();
    const A = defineResource({ name: 'Author', fields: { name: { type: 'string' } } });
    const B1 = defineResource({ name: 'Book', fields: { title: { type: 'string' } } });
    const B2 = defineResource({ name: 'Book', fields: { title: { type: 'string' }, author: { toOne: 'Author', nullable: true } } });
    const a1 = Fastify(); await a1.register(resourceApi, { resources: [A, B1], database: url, databaseSchema: schema }); await a1.ready(); await a1.close();
    const a2 = Fastify(); await a2.register(resourceApi, { resources: [A, B2], database: url, databaseSchema: schema }); await a2.ready();
    const r = await a2.resourceApi.database.knex.raw(`select conname from pg_constraint c join pg_namespace n on n.oid = c.connamespace where n.nspname = ? and contype = 'f'`, [schema]);
    out.push({ label: 'pg fks', rows: r.rows });
    await a2.resourceApi.database.knex.raw('DROP SCHEMA ?? CASCADE', [schema]);
    await a2.close();
  });
});
