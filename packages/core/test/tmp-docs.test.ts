import { writeFileSync } from 'node:fs';
import { afterAll, describe, it } from 'vitest';
import { defineResource, type Entity } from '@resource-api/core';
import { buildTestApp } from '@resource-api/core/testing';
import { call } from './helpers.js';

const out: unknown[] = [];
const sqlite = { name: 'sqlite' as const, url: 'sqlite::memory:' };
afterAll(() => writeFileSync('/tmp/docs-out/final.json', JSON.stringify(out, null, 1)));

async function req(app: any, label: string, method: string, url: string, payload?: unknown, headers: Record<string, string> = {}) {
  const opts: any = { method, url, headers };
  if (payload !== undefined) {
    if (method === 'PATCH') { opts.headers = { 'content-type': 'application/merge-patch+json', ...headers }; opts.payload = JSON.stringify(payload); }
    else opts.payload = payload;
  }
  const r = await call(app, opts);
  out.push({ label, request: `${method} ${url}`, payload, status: r.status, headers: { allow: r.headers.allow, location: r.headers.location }, body: r.body ?? r.text });
  return r;
}

const Author = defineResource({ name: 'Author', fields: { name: { type: 'string' }, books: { toMany: 'Book', mappedBy: 'author', subresource: true } } });
const Publisher = defineResource({ name: 'Publisher', fields: { name: { type: 'string' } } });
const Tag = defineResource({ name: 'Tag', fields: { label: { type: 'string' }, books: { toMany: 'Book', mappedBy: 'tags' } } });
const Book = defineResource({
  name: 'Book',
  fields: {
    title: { type: 'string' },
    author: { toOne: 'Author', inversedBy: 'books', cascadePersist: true },
    publisher: { toOne: 'Publisher', nullable: true, onDelete: 'set null', writableLink: true },
    tags: { toMany: 'Tag', inversedBy: 'books' },
  },
});

describe('final', () => {
  it('model', async () => {
    const app = await buildTestApp({ database: sqlite, resources: [Author, Publisher, Tag, Book] });
    await req(app, 'A1', 'POST', '/api/authors', { name: 'Frank Herbert' });
    await req(app, 'P1', 'POST', '/api/publishers', { name: 'Chilton' });
    await req(app, 'B1', 'POST', '/api/books', { title: 'Dune', author: '/api/authors/1', publisher: '/api/publishers/1' });
    await req(app, 'B2 abs', 'POST', '/api/books', { title: 'Dune Messiah', author: 'http://localhost:8000/api/authors/1' });
    await req(app, 'GET A1', 'GET', '/api/authors/1');
    await req(app, 'bad1', 'POST', '/api/books', { title: 'X', author: 'garbage', publisher: '/api/books/1' });
    await req(app, 'bad2', 'POST', '/api/books', { title: 'X', author: '/api/authors/999' });
    await req(app, 'bad3', 'POST', '/api/books', { title: 'X', author: 5 });
    await req(app, 'inverse ignored', 'PATCH', '/api/authors/1', { books: [] });
    await req(app, 'del A1', 'DELETE', '/api/authors/1');
    await req(app, 'del P1', 'DELETE', '/api/publishers/1');
    await req(app, 'GET B1', 'GET', '/api/books/1');
    for (const label of ['sf', 'classic', 'french']) await req(app, 'tag ' + label, 'POST', '/api/tags', { label });
    await req(app, 'B3 m2m', 'POST', '/api/books', { title: 'Children of Dune', author: '/api/authors/1', tags: ['/api/tags/2', '/api/tags/1', '/api/tags/2'] });
    await req(app, 'GET T1', 'GET', '/api/tags/1');
    await req(app, 'PATCH tags', 'PATCH', '/api/books/3', { tags: ['/api/tags/3'] });
    await req(app, 'PATCH keep', 'PATCH', '/api/books/3', { title: 'Children of Dune (1976)' });
    await req(app, 'PUT empties', 'PUT', '/api/books/3', { title: 'Children of Dune', author: '/api/authors/1' });
    await req(app, 'm2m bad', 'POST', '/api/books', { title: 'T', author: '/api/authors/1', tags: ['/api/tags/1', '/api/authors/1', '/api/tags/8'] });
    await req(app, 'm2m not array', 'POST', '/api/books', { title: 'T', author: '/api/authors/1', tags: '/api/tags/1' });
    await req(app, 'filter', 'GET', '/api/books?tags=/api/tags/1');
    // nested
    await req(app, 'N create', 'POST', '/api/books', { title: 'Emma', author: { name: 'Jane Austen' } });
    await req(app, 'GET A2', 'GET', '/api/authors/2');
    await req(app, 'N update', 'POST', '/api/books', { title: 'Persuasion', author: { '@id': '/api/authors/2', name: 'Jane Austen (1775–1817)' } });
    await req(app, 'GET A2b', 'GET', '/api/authors/2');
    await req(app, 'N bad type', 'POST', '/api/books', { title: 'P', author: { name: 42 } });
    await req(app, 'N missing', 'POST', '/api/books', { title: 'P', author: {} });
    await req(app, 'N @id 404', 'POST', '/api/books', { title: 'P', author: { '@id': '/api/authors/9', name: 'x' } });
    await req(app, 'N @id num', 'POST', '/api/books', { title: 'P', author: { '@id': 2, name: 'x' } });
    await req(app, 'P2', 'POST', '/api/publishers', { name: 'Chilton' });
    await req(app, 'WL new', 'POST', '/api/books', { title: 'Sense and Sensibility', author: '/api/authors/2', publisher: { name: 'Thomas Egerton' } });
    await req(app, 'WL @id', 'POST', '/api/books', { title: 'Sense and Sensibility', author: '/api/authors/2', publisher: { '@id': '/api/publishers/2', name: 'Chilton Books' } });
    await req(app, 'GET P2', 'GET', '/api/publishers/2');
    await req(app, 'sub', 'GET', '/api/authors/2/books');
    await req(app, 'sub json', 'GET', '/api/authors/2/books', undefined, { accept: 'application/json' });
    await req(app, 'sub 404', 'GET', '/api/authors/99/books');
    await req(app, 'sub 405', 'POST', '/api/authors/2/books', {});
    await app.close();
  });

  it('rollback', async () => {
    const app = await buildTestApp({ database: sqlite, resources: [Author, Publisher, Tag, Book] });
    const { knex } = app.resourceApi.database;
    await knex.raw('CREATE UNIQUE INDEX book_title_unique ON book (title)');
    await req(app, 'RB a', 'POST', '/api/authors', { name: 'Frank Herbert' });
    await req(app, 'RB b', 'POST', '/api/books', { title: 'Dune', author: '/api/authors/1' });
    await req(app, 'RB fail', 'POST', '/api/books', { title: 'Dune', author: { name: 'Brian Herbert' } });
    await req(app, 'RB authors', 'GET', '/api/authors');
    await app.close();
  });

  it('readableLink', async () => {
    const Pub = defineResource({ name: 'Publisher', fields: { name: { type: 'string' } } });
    const Bk = defineResource({ name: 'Book', fields: { title: { type: 'string' }, publisher: { toOne: 'Publisher', readableLink: true } } });
    const app = await buildTestApp({ database: sqlite, resources: [Pub, Bk] });
    await req(app, 'RL p', 'POST', '/api/publishers', { name: 'Chilton' });
    await req(app, 'RL b', 'POST', '/api/books', { title: 'Dune', publisher: '/api/publishers/1' });
    await app.close();
  });

  it('m2m subresources', async () => {
    const Post = defineResource({ name: 'Post', fields: { title: { type: 'string' }, tags: { toMany: 'Tag', subresource: { maxDepth: 2 } } } });
    const Tg = defineResource({ name: 'Tag', fields: { label: { type: 'string' }, posts: { toMany: 'Post', mappedBy: 'tags', subresource: true } } });
    const app = await buildTestApp({ database: sqlite, resources: [Post, Tg] });
    await req(app, 't1', 'POST', '/api/tags', { label: 'news' });
    await req(app, 't2', 'POST', '/api/tags', { label: 'tech' });
    await req(app, 'p1', 'POST', '/api/posts', { title: 'A', tags: ['/api/tags/1'] });
    await req(app, 'p2', 'POST', '/api/posts', { title: 'B', tags: ['/api/tags/1', '/api/tags/2'] });
    await req(app, 'post2 tags', 'GET', '/api/posts/2/tags');
    await req(app, 'nested', 'GET', '/api/posts/2/tags/2/posts');
    await req(app, 'nested 404', 'GET', '/api/posts/1/tags/2/posts');
    out.push({ label: 'ops', ops: app.resourceApi.metadata.resources.flatMap((r) => r.operations.filter((o) => o.kind === 'getSubresource').map((o) => [o.name, o.uriTemplate, o.description])) });
    await app.close();
  });
});
