/** Subresources: `GET /api/<parents>/{id}/<relation>`, with the target's filters and pagination, 404 for a missing parent. */
import { describe, expect, inject, it } from 'vitest';
import { buildMetadata, defineResource } from '@resource-api/core';
import { testDatabases } from '@resource-api/core/testing';
import { call, useApp } from '../helpers.js';

const User = defineResource({
  name: 'User',
  fields: { name: { type: 'string' }, comments: { toMany: 'Comment', mappedBy: 'user', subresource: true } },
});
const Comment = defineResource({
  name: 'Comment',
  paginationItemsPerPage: 2,
  fields: {
    content: { type: 'string' },
    rank: { type: 'integer' },
    user: { toOne: 'User', inversedBy: 'comments' },
    post: { toOne: 'Post', nullable: true, inversedBy: 'comments' },
  },
  filters: [
    { type: 'order', properties: ['rank', 'id'] },
    { type: 'search', properties: { content: 'ipartial' } },
  ],
});
const Post = defineResource({
  name: 'Post',
  fields: {
    title: { type: 'string' },
    comments: { toMany: 'Comment', mappedBy: 'post' },
    tags: { toMany: 'Tag', subresource: { maxDepth: 2 } },
  },
});
const Tag = defineResource({
  name: 'Tag',
  fields: { label: { type: 'string' }, posts: { toMany: 'Post', mappedBy: 'tags', subresource: true } },
});

describe('subresource metadata', () => {
  it('adds a read-only collection operation to the target, and removes it with the mark', () => {
    const registry = buildMetadata({ resources: [User, Comment, Post, Tag] });
    const operation = registry.resource('Comment').operations.find((o) => o.kind === 'getSubresource')!;
    expect(operation).toMatchObject({
      method: 'GET',
      uriTemplate: '/api/users/{id}/comments',
      name: 'api_users_comments_get_subresource',
      resource: 'Comment',
      collection: true,
    });
    expect(operation.pagination).toMatchObject({ itemsPerPage: 2 });
    expect(operation.subresource).toEqual([{ resource: 'User', field: 'comments', variable: 'id' }]);
    // maxDepth 2 from Post.tags: /posts/{id}/tags/{tags}/posts
    expect(
      registry
        .resource('Post')
        .operations.filter((o) => o.kind === 'getSubresource')
        .map((o) => o.uriTemplate),
    ).toEqual(['/api/posts/{id}/tags/{tags}/posts', '/api/tags/{id}/posts']);
    const unmarked = buildMetadata({
      resources: [
        { ...User, fields: { ...User.fields, comments: { toMany: 'Comment', mappedBy: 'user' } } },
        Comment,
        Post,
        Tag,
      ],
    });
    expect(unmarked.resource('Comment').operations.some((o) => o.kind === 'getSubresource')).toBe(false);
  });
});

describe('subresource naming', () => {
  it('numbers repeated URI variables and names operations after the path under any prefix', () => {
    const Person = defineResource({
      name: 'Person',
      fields: { name: { type: 'string' }, friends: { toMany: 'Person', subresource: { maxDepth: 3 } } },
    });
    const registry = buildMetadata({ resources: [Person], prefix: '/api/v1' });
    const templates = registry
      .resource('Person')
      .operations.filter((o) => o.kind === 'getSubresource')
      .map((o) => [o.uriTemplate, o.name]);
    expect(templates).toEqual([
      ['/api/v1/people/{id}/friends', 'api_people_friends_get_subresource'],
      ['/api/v1/people/{id}/friends/{friends}/friends', 'api_people_friends_friends_get_subresource'],
      [
        '/api/v1/people/{id}/friends/{friends}/friends/{friends2}/friends',
        'api_people_friends_friends_friends_get_subresource',
      ],
    ]);
  });
});

describe.each(testDatabases(inject('postgresUrl'), inject('mariadbUrl')))('subresources on $name', (database) => {
  const app = useApp(database, { resources: [User, Comment, Post, Tag] });
  const post = (url: string, payload: object) => call(app(), { method: 'POST', url, payload });
  const get = (url: string) => call(app(), { method: 'GET', url });

  async function seed() {
    await post('/api/users', { name: 'Ann' });
    await post('/api/users', { name: 'Bob' });
    await post('/api/users', { name: 'Quiet' });
    for (const [content, rank, user] of [
      ['first', 3, 1],
      ['second', 1, 2],
      ['third', 2, 1],
      ['fourth', 1, 1],
    ] as const) {
      await post('/api/comments', { content, rank, user: `/api/users/${user}` });
    }
  }

  it('lists the comments of a user as a Hydra collection with the target pagination', async () => {
    await seed();
    const response = await get('/api/users/1/comments');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      '@context': '/api/contexts/Comment',
      '@id': '/api/users/1/comments',
      '@type': 'hydra:Collection',
      'hydra:totalItems': 3,
      'hydra:member': [
        { '@id': '/api/comments/1', '@type': 'Comment', id: 1, content: 'first', rank: 3, user: '/api/users/1' },
        { '@id': '/api/comments/3', '@type': 'Comment', id: 3, content: 'third', rank: 2, user: '/api/users/1' },
      ],
      'hydra:view': {
        '@id': '/api/users/1/comments?page=1',
        '@type': 'hydra:PartialCollectionView',
        'hydra:first': '/api/users/1/comments?page=1',
        'hydra:last': '/api/users/1/comments?page=2',
        'hydra:next': '/api/users/1/comments?page=2',
      },
      'hydra:search': expect.objectContaining({
        'hydra:template': '/api/users/1/comments{?order[rank],order[id],content,content[]}',
      }),
    });
  });

  it('applies the target filters and order', async () => {
    await seed();
    const ordered = await get('/api/users/1/comments?order[rank]=asc&order[id]=desc&itemsPerPage=5');
    expect(ordered.body['hydra:member'].map((c: { content: string }) => c.content)).toEqual([
      'fourth',
      'third',
      'first',
    ]);
    const filtered = await get('/api/users/1/comments?content=IR');
    expect(filtered.body['hydra:member'].map((c: { content: string }) => c.content)).toEqual(['first', 'third']);
    // the flat collection filtered by user stays available
    expect((await get('/api/comments?pagination=false')).body['hydra:totalItems']).toBe(4);
  });

  it('answers an empty collection for a parent without items, and 404 for a missing or invalid parent', async () => {
    await seed();
    const empty = await get('/api/users/3/comments');
    expect(empty.status).toBe(200);
    expect(empty.body['hydra:member']).toEqual([]);
    for (const url of ['/api/users/99/comments', '/api/users/abc/comments']) {
      const missing = await get(url);
      expect(missing.status, url).toBe(404);
      expect(missing.body.detail).toBe('Not Found');
    }
    const post405 = await call(app(), { method: 'POST', url: '/api/users/1/comments', payload: {} });
    expect(post405.status).toBe(405);
    expect(post405.headers.allow).toBe('GET, HEAD');
  });

  it('follows a chain through the same relation, checking each link', async () => {
    const Person = defineResource({
      name: 'Person',
      fields: { name: { type: 'string' }, friends: { toMany: 'Person', subresource: { maxDepth: 3 } } },
    });
    const { buildTestApp } = await import('@resource-api/core/testing');
    const people = await buildTestApp({ database, resources: [Person] });
    for (const name of ['a', 'b', 'c']) await call(people, { method: 'POST', url: '/api/people', payload: { name } });
    // 3 → 2, 2 → 1, 1 → 3
    for (const [from, to] of [
      [3, 2],
      [2, 1],
      [1, 3],
    ]) {
      await call(people, {
        method: 'PATCH',
        url: `/api/people/${from}`,
        headers: { 'content-type': 'application/merge-patch+json' },
        payload: JSON.stringify({ friends: [`/api/people/${to}`] }),
      });
    }
    const chain = await call(people, { method: 'GET', url: '/api/people/3/friends/2/friends/1/friends' });
    expect(chain.status).toBe(200);
    expect(chain.body['hydra:member'].map((p: { name: string }) => p.name)).toEqual(['c']);
    expect((await call(people, { method: 'GET', url: '/api/people/3/friends/1/friends/3/friends' })).status).toBe(404);
    await people.close();
  });

  it('follows many-to-many relations, and nests as deep as maxDepth allows, checking each parent holds the next', async () => {
    await post('/api/tags', { label: 'news' });
    await post('/api/tags', { label: 'tech' });
    await post('/api/posts', { title: 'A', tags: ['/api/tags/1'] });
    await post('/api/posts', { title: 'B', tags: ['/api/tags/1', '/api/tags/2'] });
    expect((await get('/api/posts/2/tags')).body['hydra:member'].map((t: { label: string }) => t.label)).toEqual([
      'news',
      'tech',
    ]);
    expect((await get('/api/tags/1/posts')).body['hydra:member'].map((p: { title: string }) => p.title)).toEqual([
      'A',
      'B',
    ]);
    expect(
      (await get('/api/posts/2/tags/2/posts')).body['hydra:member'].map((p: { title: string }) => p.title),
    ).toEqual(['B']);
    // tag 2 is not a tag of post 1
    expect((await get('/api/posts/1/tags/2/posts')).status).toBe(404);
    // not nested deeper than allowed
    expect((await get('/api/posts/2/tags/2/posts/2/tags')).status).toBe(404);
  });
});

describe.each(testDatabases(inject('postgresUrl'), inject('mariadbUrl')))(
  'filtered subresource pages on $name',
  (database) => {
    // A page's count is a sub-query of its columns, bound before the parent's condition in the WHERE: the recorded shape
    // must bind each request's values in that order, also after a first request whose values were all equal.
    const Member = defineResource({
      name: 'Member',
      fields: { name: { type: 'string' }, notes: { toMany: 'Note', mappedBy: 'member', subresource: true } },
    });
    const Note = defineResource({
      name: 'Note',
      fields: { text: { type: 'string' }, rank: { type: 'integer' }, member: { toOne: 'Member', inversedBy: 'notes' } },
      filters: [{ type: 'numeric', properties: ['rank'] }],
    });
    const app = useApp(database, { resources: [Member, Note] });
    const post = (url: string, payload: object) => call(app(), { method: 'POST', url, payload });
    const texts = async (url: string) => {
      const response = await call(app(), { method: 'GET', url });
      expect(response.status, url).toBe(200);
      return [
        response.body['hydra:totalItems'],
        response.body['hydra:member'].map((note: { text: string }) => note.text),
      ];
    };

    it("binds each request's parent and filter values where they belong", async () => {
      for (const name of ['one', 'two', 'three', 'four', 'five']) await post('/api/members', { name });
      for (const [text, rank, member] of [
        ['1a', 1, 1],
        ['1b', 5, 1],
        ['2a', 5, 2],
        ['2b', 1, 2],
        ['5a', 2, 5],
        ['5b', 2, 5],
      ] as const) {
        await post('/api/notes', { text, rank, member: `/api/members/${member}` });
      }
      // The parent's id and the filter's value are both 1: any order of the bindings gives this answer.
      expect(await texts('/api/members/1/notes?rank=1')).toEqual([1, ['1a']]);
      // Swapped, the values would read member 5's notes of rank 2.
      expect(await texts('/api/members/2/notes?rank=5')).toEqual([1, ['2a']]);
      expect(await texts('/api/members/5/notes?rank=2')).toEqual([2, ['5a', '5b']]);
      expect(await texts('/api/members/1/notes?rank=2')).toEqual([0, []]);
    });
  },
);
