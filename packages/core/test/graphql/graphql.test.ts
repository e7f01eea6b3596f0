/** GraphQL through real requests: schema, queries, paging, filters, mutations, errors, security, limits; on both databases. */
import type { FastifyInstance } from 'fastify';
import { describe, expect, inject, it } from 'vitest';
import { defineResource, Length, NotBlank, Valid } from '@resource-api/core';
import { buildTestApp, testDatabases } from '@resource-api/core/testing';
import { call, useApp } from '../helpers.js';
import { SECRET } from '../security/fixtures.js';

const User = defineResource({
  name: 'User',
  fields: {
    email: { type: 'string' },
    plainPassword: { type: 'password', column: 'password' },
    roles: { type: 'string[]', default: ['ROLE_USER'] },
  },
  operations: ['post', 'get'],
});
const Author = defineResource({
  name: 'Author',
  fields: { name: { type: 'string', constraints: [NotBlank()] }, books: { toMany: 'Book', mappedBy: 'author' } },
  filters: [{ type: 'search', properties: { name: 'exact' } }],
});
const Book = defineResource({
  name: 'Book',
  fields: {
    title: { type: 'string', constraints: [NotBlank(), Length({ min: 3 })] },
    price: { type: 'float', nullable: true },
    available: { type: 'boolean', default: true },
    summary: { type: 'text', nullable: true },
    publishedAt: { type: 'datetime', nullable: true },
    author: { toOne: 'Author', inversedBy: 'books', cascadePersist: true, constraints: [Valid()] },
    comments: { toMany: 'Comment', mappedBy: 'book' },
  },
  paginationItemsPerPage: 3,
  paginationMaximumItemsPerPage: 5,
  filters: [
    { type: 'search', properties: { title: 'ipartial', 'author.name': 'ipartial' } },
    { type: 'range', properties: ['price'] },
    { type: 'boolean', properties: ['available'] },
    { type: 'exists', properties: ['summary'] },
    { type: 'order', properties: ['title', 'price'] },
  ],
  operations: [
    'get',
    'getCollection',
    { kind: 'post', security: "is_granted('ROLE_USER')" },
    { kind: 'patch', security: "is_granted('ROLE_ADMIN')", securityMessage: 'Admins only.' },
    'delete',
  ],
});
const Comment = defineResource({
  name: 'Comment',
  fields: { text: { type: 'string' }, book: { toOne: 'Book', inversedBy: 'comments' } },
});
const Tag = defineResource({
  name: 'Tag',
  fields: { label: { type: 'string' } },
  paginationType: 'page',
  paginationItemsPerPage: 2,
});

const security = { jwt: { secret: SECRET }, users: { resource: 'User' } } as const;

async function gql(app: FastifyInstance, query: string, variables: Record<string, unknown> = {}, token?: string) {
  const response = await call(app, {
    method: 'POST',
    url: '/graphql',
    payload: { query, variables },
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });
  return response;
}

describe.each(testDatabases(inject('postgresUrl'), inject('mariadbUrl')))('GraphQL on $name', (database) => {
  const app = useApp(database, { resources: [User, Author, Book, Comment, Tag], security });

  async function tokens() {
    await call(app(), {
      method: 'POST',
      url: '/api/users',
      payload: { email: 'user@example.com', plainPassword: 'password-1' },
    });
    await call(app(), {
      method: 'POST',
      url: '/api/users',
      payload: { email: 'admin@example.com', plainPassword: 'password-1' },
    });
    await app()
      .resourceApi.database.knex('user')
      .where('id', 2)
      .update({ roles: JSON.stringify(['ROLE_ADMIN']) });
    const login = async (email: string) =>
      (await call(app(), { method: 'POST', url: '/api/auth', payload: { email, password: 'password-1' } })).body
        .token as string;
    return { user: await login('user@example.com'), admin: await login('admin@example.com') };
  }

  async function seed(token: string) {
    const titles = [
      ['Dune', 9, 'Frank Herbert'],
      ['Emma', 5, 'Jane Austen'],
      ['Persuasion', 7, 'Jane Austen'],
      ['Children of Dune', 11, 'Frank Herbert'],
      ['Ulysses', null, 'James Joyce'],
    ] as const;
    for (const [title, price, name] of titles) {
      const author = await call(app(), { method: 'GET', url: `/api/authors?name=${encodeURIComponent(name)}` });
      const existing = author.body['hydra:member'][0]?.['@id'];
      const response = await gql(
        app(),
        'mutation ($input: createBookInput!) { createBook(input: $input) { book { id } } }',
        {
          input: {
            title,
            price,
            author: existing ? { id: existing } : { name },
            summary: price && price > 8 ? 'Long.' : null,
          },
        },
        token,
      );
      expect(response.body.errors, JSON.stringify(response.body.errors)).toBeUndefined();
    }
  }

  it('exposes a schema with types, connections, queries and mutations', async () => {
    const response = await gql(
      app(),
      '{ __schema { queryType { fields { name } } mutationType { fields { name } } types { name } } }',
    );
    const schema = response.body.data.__schema;
    expect(schema.queryType.fields.map((f: { name: string }) => f.name)).toEqual(
      expect.arrayContaining(['node', 'book', 'books', 'author', 'authors', 'user', 'tags']),
    );
    expect(schema.queryType.fields.map((f: { name: string }) => f.name)).not.toContain('users');
    expect(schema.mutationType.fields.map((f: { name: string }) => f.name)).toEqual(
      expect.arrayContaining(['createBook', 'updateBook', 'deleteBook', 'createUser']),
    );
    expect(schema.mutationType.fields.map((f: { name: string }) => f.name)).not.toContain('deleteUser');
    expect(schema.types.map((t: { name: string }) => t.name)).toEqual(
      expect.arrayContaining([
        'Book',
        'BookCursorConnection',
        'BookEdge',
        'BookPageInfo',
        'createBookInput',
        'createBookPayload',
        'BookFilter_price',
        'BookFilter_order',
        'TagPageConnection',
      ]),
    );
  });

  it('reads an item by IRI with its relations; a missing one is null', async () => {
    const { user } = await tokens();
    await seed(user);
    const response = await gql(
      app(),
      '{ book(id: "/api/books/1") { id _id title price available author { id name books { totalCount edges { node { title } } } } comments { totalCount } } }',
    );
    expect(response.body).toEqual({
      data: {
        book: {
          id: '/api/books/1',
          _id: 1,
          title: 'Dune',
          price: 9,
          available: true,
          author: {
            id: '/api/authors/1',
            name: 'Frank Herbert',
            books: { totalCount: 2, edges: [{ node: { title: 'Dune' } }, { node: { title: 'Children of Dune' } }] },
          },
          comments: { totalCount: 0 },
        },
      },
    });
    expect((await gql(app(), '{ book(id: "/api/books/99") { id } }')).body).toEqual({ data: { book: null } });
    expect((await gql(app(), '{ node(id: "/api/authors/2") { id ... on Author { name } } }')).body.data.node).toEqual({
      id: '/api/authors/2',
      name: 'Jane Austen',
    });
  });

  it('pages collections as cursor connections, forwards and backwards, with the REST page limits', async () => {
    const { user } = await tokens();
    await seed(user);
    const page = async (args: string) =>
      (
        await gql(
          app(),
          `{ books${args ? `(${args})` : ''} { totalCount pageInfo { startCursor endCursor hasNextPage hasPreviousPage } edges { cursor node { _id } } } }`,
        )
      ).body.data.books;
    const first = await page('');
    expect(first.totalCount).toBe(5);
    expect(first.edges.map((e: { node: { _id: number } }) => e.node._id)).toEqual([1, 2, 3]);
    expect(first.pageInfo).toEqual({
      startCursor: 'MA==',
      endCursor: 'Mg==',
      hasNextPage: true,
      hasPreviousPage: false,
    });
    const next = await page(`first: 3, after: "${first.pageInfo.endCursor}"`);
    expect(next.edges.map((e: { node: { _id: number } }) => e.node._id)).toEqual([4, 5]);
    expect(next.pageInfo.hasNextPage).toBe(false);
    const back = await page(`last: 2, before: "${next.edges[0].cursor}"`);
    expect(back.edges.map((e: { node: { _id: number } }) => e.node._id)).toEqual([2, 3]);
    const last = await page('last: 2');
    expect(last.edges.map((e: { node: { _id: number } }) => e.node._id)).toEqual([4, 5]);
    // first above the maximum (5) is clamped
    expect((await page('first: 50')).edges).toHaveLength(5);
    const tags = await gql(
      app(),
      '{ tags(page: 1) { collection { label } paginationInfo { itemsPerPage lastPage totalCount currentPage hasNextPage } } }',
    );
    expect(tags.body.data.tags.paginationInfo).toEqual({
      itemsPerPage: 2,
      lastPage: 1,
      totalCount: 0,
      currentPage: 1,
      hasNextPage: false,
    });
  });

  it("takes the declared filters as arguments, in API Platform's shapes", async () => {
    const { user } = await tokens();
    await seed(user);
    const titles = async (args: string) =>
      (await gql(app(), `{ books(first: 5, ${args}) { edges { node { title } } } }`)).body.data.books.edges.map(
        (e: { node: { title: string } }) => e.node.title,
      );
    expect(await titles('title: "dune"')).toEqual(['Dune', 'Children of Dune']);
    expect(await titles('title_list: ["emma", "ulysses"]')).toEqual(['Emma', 'Ulysses']);
    expect(await titles('author_name: "jane"')).toEqual(['Emma', 'Persuasion']);
    expect(await titles('price: [{ gte: "7", lt: "11" }]')).toEqual(['Dune', 'Persuasion']);
    expect(await titles('order: [{ price: "DESC" }], price: [{ gte: "1" }]')).toEqual([
      'Children of Dune',
      'Dune',
      'Persuasion',
      'Emma',
    ]);
    expect(await titles('exists: [{ summary: true }]')).toEqual(['Dune', 'Children of Dune']);
    expect(await titles('available: true, order: [{ title: "ASC" }]')).toEqual([
      'Children of Dune',
      'Dune',
      'Emma',
      'Persuasion',
      'Ulysses',
    ]);
    const bad = await gql(app(), '{ books(price: [{ gte: "cheap" }]) { totalCount } }');
    expect(bad.body.errors[0]).toMatchObject({
      message: 'Query parameter "price[gte]": expected a number, "cheap" given.',
      extensions: { status: 400 },
    });
  });

  it('creates with nested inputs, updates only the given fields, deletes', async () => {
    const { user, admin } = await tokens();
    const created = await gql(
      app(),
      'mutation { createBook(input: { title: "Dune", author: { name: "Frank Herbert" }, clientMutationId: "c1" }) { book { id title author { name } } clientMutationId } }',
      {},
      user,
    );
    expect(created.body).toEqual({
      data: {
        createBook: {
          book: { id: '/api/books/1', title: 'Dune', author: { name: 'Frank Herbert' } },
          clientMutationId: 'c1',
        },
      },
    });
    const updated = await gql(
      app(),
      'mutation { updateBook(input: { id: "/api/books/1", price: 12.5 }) { book { title price } } }',
      {},
      admin,
    );
    expect(updated.body).toEqual({ data: { updateBook: { book: { title: 'Dune', price: 12.5 } } } });
    const deleted = await gql(
      app(),
      'mutation { deleteBook(input: { id: "/api/books/1" }) { book { id } } }',
      {},
      admin,
    );
    expect(deleted.body).toEqual({ data: { deleteBook: { book: { id: '/api/books/1' } } } });
    expect((await call(app(), { method: 'GET', url: '/api/books/1' })).status).toBe(404);
    const unknown = await gql(
      app(),
      'mutation { deleteBook(input: { id: "/api/books/99" }) { book { id } } }',
      {},
      admin,
    );
    expect(unknown.body.errors[0].extensions.status).toBe(404);
  });

  it('gives the same validation and access answers as REST', async () => {
    const { user } = await tokens();
    // validation
    const rest = await call(app(), {
      method: 'POST',
      url: '/api/books',
      headers: { authorization: `Bearer ${user}` },
      payload: { title: 'ab', author: { name: '' } },
    });
    const graph = await gql(
      app(),
      'mutation { createBook(input: { title: "ab", author: { name: "" } }) { book { id } } }',
      {},
      user,
    );
    expect(graph.status).toBe(200);
    expect(graph.body.data.createBook).toBeNull();
    expect(graph.body.errors[0].extensions.status).toBe(400);
    expect(
      graph.body.errors[0].extensions.violations.map((v: { propertyPath: string; message: string }) => [
        v.propertyPath,
        v.message,
      ]),
    ).toEqual(rest.body.violations.map((v: { propertyPath: string; message: string }) => [v.propertyPath, v.message]));
    expect(graph.body.errors[0].message).toBe(rest.body['hydra:description']);
    // anonymous → 401; a user without the role → 403 with the rule's message
    const anonymous = await gql(
      app(),
      'mutation { createBook(input: { title: "Dune", author: { name: "F" } }) { book { id } } }',
    );
    expect(anonymous.body.errors[0].extensions.status).toBe(401);
    await gql(
      app(),
      'mutation { createBook(input: { title: "Dune", author: { name: "F" } }) { book { id } } }',
      {},
      user,
    );
    const forbidden = await gql(
      app(),
      'mutation { updateBook(input: { id: "/api/books/1", title: "Dune!" }) { book { id } } }',
      {},
      user,
    );
    expect(forbidden.body.errors[0]).toMatchObject({ message: 'Admins only.', extensions: { status: 403 } });
    const restForbidden = await call(app(), {
      method: 'PATCH',
      url: '/api/books/1',
      headers: { authorization: `Bearer ${user}`, 'content-type': 'application/merge-patch+json' },
      payload: '{"title":"Dune!"}',
    });
    expect(restForbidden.status).toBe(403);
    expect(restForbidden.body.detail).toBe('Admins only.');
    // a bad token is a 401 on every operation
    const bad = await gql(app(), '{ books { totalCount } }', {}, 'not-a-token');
    expect(bad.body.errors[0].extensions.status).toBe(401);
  });

  it('loads relations of a whole page in batches, not one query per item', async () => {
    const { user } = await tokens();
    await seed(user);
    for (const [text, book] of [
      ['a', 1],
      ['b', 2],
      ['c', 1],
    ] as const)
      await call(app(), { method: 'POST', url: '/api/comments', payload: { text, book: `/api/books/${book}` } });
    const queries: string[] = [];
    const knex = app().resourceApi.database.knex;
    const listen = (q: { sql: string }) => queries.push(q.sql);
    knex.on('query', listen);
    const response = await gql(
      app(),
      '{ books(first: 5) { edges { node { title author { name } comments { edges { node { text } } } } } } }',
    );
    knex.off('query', listen);
    expect(response.body.data.books.edges[0].node).toEqual({
      title: 'Dune',
      author: { name: 'Frank Herbert' },
      comments: { edges: [{ node: { text: 'a' } }, { node: { text: 'c' } }] },
    });
    // page, count, Book.comments ids (page); authors + their books ids; comments + their ids
    expect(queries.length).toBeLessThanOrEqual(6);
  });

  it('reads the authors a page of books selects with the page itself: one statement per query, fragments followed', async () => {
    const { user } = await tokens();
    await seed(user);
    const queries: string[] = [];
    const knex = app().resourceApi.database.knex;
    const listen = (q: { sql: string }) => queries.push(q.sql);
    knex.on('query', listen);
    const direct = await gql(app(), '{ books(first: 5) { totalCount edges { node { title author { name } } } } }');
    const viaFragments = await gql(
      app(),
      '{ books(first: 5) { totalCount edges { ...E } } } fragment E on BookEdge { node { title ... on Book { author { name } } } }',
    );
    // sent again: its parsed document (and the relations worked out from it) are reused, and it runs compiled
    const again = await gql(app(), '{ books(first: 5) { totalCount edges { node { title author { name } } } } }');
    knex.off('query', listen);
    expect(direct.body.data.books.edges[0].node).toEqual({ title: 'Dune', author: { name: 'Frank Herbert' } });
    expect(viaFragments.body).toEqual(direct.body);
    expect(again.body).toEqual(direct.body);
    // per query: the page with its count and its authors, joined, and the page's comment ids; no batch of authors
    expect(queries).toHaveLength(6);
    expect(queries.filter((sql) => /left join .author. as/i.test(sql))).toHaveLength(3);
    expect(queries.filter((sql) => /^select .* from .author./i.test(sql))).toEqual([]);
  });

  it('answers a query seen before (compiled by graphql-jit) exactly as the first time, errors included', async () => {
    const { user } = await tokens();
    await seed(user);
    const queries = [
      '{ books(first: 2, order: [{ title: "DESC" }]) { totalCount edges { cursor node { id _id title price available publishedAt author { name } comments { totalCount } } } pageInfo { hasNextPage endCursor } } }',
      '{ book(id: "/api/books/1") { title author { name books { edges { node { title } } } } } }',
      '{ book(id: "/api/books/999") { title } }',
      '{ books(price: { gte: "cheap" }) { totalCount } }',
      '{ books(title: "dune", exists: [{ summary: true }]) { edges { node { title summary } } } }',
      '{ tags(page: 1) { collection { label } paginationInfo { totalCount lastPage } } }',
    ];
    for (const query of queries) {
      const answer = async () => {
        const { status, body } = await gql(app(), query);
        return { status, body };
      };
      const first = await answer();
      expect(first.body.data ?? first.body.errors).toBeTruthy();
      for (let run = 0; run < 2; run++) expect(await answer(), query).toEqual(first);
    }
    // A variable changes the answer of the compiled query as it would the first one.
    const byTitle = 'query ($title: String) { books(title: $title) { totalCount } }';
    expect((await gql(app(), byTitle, { title: 'dune' })).body.data.books.totalCount).toBe(2);
    expect((await gql(app(), byTitle, { title: 'emma' })).body.data.books.totalCount).toBe(1);
    expect((await gql(app(), byTitle, { title: 'dune' })).body.data.books.totalCount).toBe(2);
  });

  it('gives the path of an error in a list with the index as a number', async () => {
    const { user } = await tokens();
    await seed(user);
    for (let run = 0; run < 2; run++) {
      const response = await gql(
        app(),
        '{ authors(first: 1) { edges { node { name books(after: "bm9wZQ==") { totalCount } } } } }',
      );
      expect(response.body.errors[0].path).toEqual(['authors', 'edges', 0, 'node', 'books']);
    }
  });

  it('runs the operation each request names, of a document compiled for another; a GET never runs its mutation', async () => {
    const { user } = await tokens();
    await seed(user);
    const post = (query: string, operationName: string) =>
      call(app(), {
        method: 'POST',
        url: '/graphql',
        payload: { query, operationName },
        headers: { authorization: `Bearer ${user}` },
      });
    const counts = 'query A { authors { totalCount } } query B { books { totalCount } }';
    // The second run of a query is the compiled one (jit: 1); B's compiled run must not be A's.
    for (let run = 0; run < 3; run++)
      expect((await post(counts, 'A')).body).toEqual({ data: { authors: { totalCount: 3 } } });
    for (let run = 0; run < 3; run++)
      expect((await post(counts, 'B')).body).toEqual({ data: { books: { totalCount: 5 } } });
    expect((await post(counts, 'C')).body.errors[0].message).toBe('Unknown operation named "C".');

    const both =
      'query Q { authors { totalCount } } mutation M($input: createAuthorInput!) { createAuthor(input: $input) { author { name } } }';
    const create = () =>
      call(app(), {
        method: 'POST',
        url: '/graphql',
        payload: { query: both, operationName: 'M', variables: { input: { name: `Author ${Math.random()}` } } },
      });
    for (let run = 0; run < 2; run++) expect((await create()).body.errors).toBeUndefined();
    const read = await call(app(), {
      method: 'GET',
      url: `/graphql?query=${encodeURIComponent(both)}&operationName=Q`,
    });
    expect(read.body).toEqual({ data: { authors: { totalCount: 5 } } });
    const mutationByGet = await call(app(), {
      method: 'GET',
      url: `/graphql?query=${encodeURIComponent(both)}&operationName=M`,
    });
    expect(mutationByGet.status).toBeGreaterThanOrEqual(400);
    expect((await call(app(), { method: 'GET', url: '/api/authors' })).body['hydra:totalItems']).toBe(5);
    const unknownByGet = await call(app(), {
      method: 'GET',
      url: `/graphql?query=${encodeURIComponent(both)}&operationName=N`,
    });
    expect(unknownByGet.body).toEqual({ data: null, errors: [{ message: 'Unknown operation named "N".' }] });
    const unknownByPost = await post(both, 'N');
    expect({ status: unknownByPost.status, body: unknownByPost.body }).toEqual({
      status: unknownByGet.status,
      body: unknownByGet.body,
    });
    const unnamedByGet = await call(app(), { method: 'GET', url: `/graphql?query=${encodeURIComponent(both)}` });
    const unnamedByPost = await call(app(), { method: 'POST', url: '/graphql', payload: { query: both } });
    expect(unnamedByGet.body).toEqual({
      data: null,
      errors: [{ message: 'Must provide operation name if query contains multiple operations.' }],
    });
    expect({ status: unnamedByPost.status, body: unnamedByPost.body }).toEqual({
      status: unnamedByGet.status,
      body: unnamedByGet.body,
    });
  });

  it('reads relations as they are after each mutation of a request, not as an earlier field of it read them', async () => {
    const { user, admin } = await tokens();
    await seed(user);
    const mutation = `mutation {
      a: updateBook(input: { id: "/api/books/1", title: "Dune Messiah" }) { book { title author { name books { edges { node { title } } } } } }
      b: updateBook(input: { id: "/api/books/4", title: "Children of Dune, revised" }) { book { title } }
      c: updateBook(input: { id: "/api/books/1", price: 10 }) { book { title author { name books { edges { node { title } } } } } }
    }`;
    const response = await gql(app(), mutation, {}, admin);
    expect(response.body.errors).toBeUndefined();
    const titles = (answer: { book: { author: { books: { edges: { node: { title: string } }[] } } } }) =>
      answer.book.author.books.edges.map((edge) => edge.node.title);
    expect(titles(response.body.data.a)).toEqual(['Dune Messiah', 'Children of Dune']);
    expect(titles(response.body.data.c)).toEqual(['Dune Messiah', 'Children of Dune, revised']);
  });

  it('limits query depth and complexity, and serves queries over GET', async () => {
    const deep = await gql(
      app(),
      '{ books { edges { node { author { books { edges { node { author { books { edges { node { author { name } } } } } } } } } } } } }',
    );
    expect(deep.body.errors[0].message).toMatch(/depth/i);
    const wide = Array.from({ length: 400 }, (_, i) => `b${i}: book(id: "/api/books/1") { id title price }`).join(' ');
    const complex = await gql(app(), `{ ${wide} }`);
    expect(complex.body.errors[0].message).toBe('The query is too complex: it selects more than 1000 fields.');
    const get = await call(app(), {
      method: 'GET',
      url: `/graphql?query=${encodeURIComponent('{ books { totalCount } }')}`,
    });
    expect(get.body).toEqual({ data: { books: { totalCount: 0 } } });
    const mutationByGet = await call(app(), {
      method: 'GET',
      url: `/graphql?query=${encodeURIComponent('mutation { deleteBook(input: { id: "/api/books/1" }) { book { id } } }')}`,
    });
    expect(mutationByGet.body.errors ?? mutationByGet.body.data).toBeDefined();
    expect(mutationByGet.status).toBeGreaterThanOrEqual(400);
  });

  it('serves GraphiQL to browsers from local files', async () => {
    const page = await app().inject({ method: 'GET', url: '/graphql', headers: { accept: 'text/html' } });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.body).toContain('/graphql/graphiql/graphiql.js');
    expect(page.body).not.toMatch(/https?:\/\//);
    // The endpoint with a query string is the page too; a query in the URL, a longer path or no HTML wanted is not.
    const html = { accept: 'text/html,application/xhtml+xml' };
    expect(
      (await app().inject({ method: 'GET', url: '/graphql?theme=dark', headers: html })).headers['content-type'],
    ).toBe('text/html; charset=utf-8');
    const query = await app().inject({
      method: 'GET',
      url: `/graphql?query=${encodeURIComponent('{ books { totalCount } }')}`,
      headers: html,
    });
    expect(query.headers['content-type']).toMatch(/^application\/json/);
    expect(query.json().data.books.totalCount).toEqual(expect.any(Number));
    expect((await app().inject({ method: 'GET', url: '/graphqlx', headers: html })).statusCode).toBe(404);
    expect(
      (await app().inject({ method: 'GET', url: '/graphql', headers: { accept: 'application/json' } })).headers[
        'content-type'
      ],
    ).not.toMatch(/text\/html/);
    for (const asset of ['react.js', 'react-dom.js', 'graphiql.js', 'graphiql.css']) {
      const response = await app().inject({ method: 'GET', url: `/graphql/graphiql/${asset}` });
      expect(response.statusCode, asset).toBe(200);
      expect(response.body.length, asset).toBeGreaterThan(1000);
    }
  });

  it('answers 413 for bodies over 1 MiB', async () => {
    const response = await app().inject({
      method: 'POST',
      url: '/graphql',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ query: `{ books { totalCount } } #${'x'.repeat(1024 * 1024)}` }),
    });
    expect(response.statusCode).toBe(413);
    // Every error of the GraphQL endpoint is a GraphQL body, this one too.
    expect(response.json()).toEqual({ data: null, errors: [{ message: 'Request body is too large' }] });
  });

  it("takes the plugin's bodyLimit, as REST does", async () => {
    const small = await buildTestApp({
      database,
      resources: [User, Author, Book, Comment, Tag],
      security,
      bodyLimit: 2048,
    });
    try {
      const query = (padding: number) => JSON.stringify({ query: `{ books { totalCount } } #${'x'.repeat(padding)}` });
      const over = await small.inject({
        method: 'POST',
        url: '/graphql',
        headers: { 'content-type': 'application/json' },
        payload: query(4096),
      });
      expect(over.statusCode).toBe(413);
      const under = await small.inject({
        method: 'POST',
        url: '/graphql',
        headers: { 'content-type': 'application/json' },
        payload: query(100),
      });
      expect(under.statusCode).toBe(200);
      expect(under.json().data.books.totalCount).toBe(0);
    } finally {
      await small.close();
    }
  });
});

describe.each(testDatabases(inject('postgresUrl'), inject('mariadbUrl')))(
  'GraphQL field visibility on $name',
  (database) => {
    it("resolves fields outside the caller's groups (chosen by a function) and fields denied by their rule to null", async () => {
      const Member = defineResource({
        name: 'Member',
        normalizationGroups: ({ roles }) => (roles.includes('ROLE_ADMIN') ? ['public', 'admin'] : ['public']),
        fields: {
          name: { type: 'string', groups: ['public'] },
          salary: { type: 'float', groups: ['admin'] },
          note: { type: 'string', nullable: true, groups: ['public'], security: 'false' },
        },
      });
      const app = await buildTestApp({ database, resources: [Member] });
      expect(
        (await call(app, { method: 'POST', url: '/api/members', payload: { name: 'Ann', salary: 100 } })).status,
      ).toBe(201);
      await app.resourceApi.database.knex('member').update({ note: 'secret' });
      const response = await gql(app, '{ member(id: "/api/members/1") { name salary note } }');
      expect(response.body).toEqual({ data: { member: { name: 'Ann', salary: null, note: null } } });
      await app.close();
    });
  },
);

describe.each(testDatabases(inject('postgresUrl'), inject('mariadbUrl')))(
  'GraphQL read groups per operation on $name',
  (database) => {
    it("resolves the fields of a collection query's items by the collection GET's groups, and an item query's by the item GET's", async () => {
      // The list is public and shows the name; the item GET is for admins and shows the salary too.
      const Employee = defineResource({
        name: 'Employee',
        fields: {
          name: { type: 'string', groups: ['list', 'detail'] },
          salary: { type: 'float', groups: ['detail'] },
          manager: { toOne: 'Employee', nullable: true, groups: ['list', 'detail'] },
        },
        operations: [
          { kind: 'getCollection', normalizationGroups: ['list'] },
          { kind: 'get', normalizationGroups: ['detail'], security: "is_granted('ROLE_ADMIN')" },
          'post',
        ],
      });
      const app = await buildTestApp({ database, resources: [Employee] });
      for (const payload of [
        { name: 'Ann', salary: 100 },
        { name: 'Bob', salary: 50, manager: '/api/employees/1' },
      ]) {
        expect((await call(app, { method: 'POST', url: '/api/employees', payload })).status).toBe(201);
      }
      const rest = await call(app, { method: 'GET', url: '/api/employees' });
      expect(rest.body['hydra:member'].map((member: Record<string, unknown>) => member.salary)).toEqual([
        undefined,
        undefined,
      ]);
      for (let run = 0; run < 2; run++) {
        const list = await gql(app, '{ employees { edges { node { name salary manager { name } } } } }');
        expect(list.body).toEqual({
          data: {
            employees: {
              edges: [
                { node: { name: 'Ann', salary: null, manager: null } },
                // The manager is reached through a relation: the item GET (admins only) denies it to this caller.
                { node: { name: 'Bob', salary: null, manager: null } },
              ],
            },
          },
        });
      }
      const item = await gql(app, '{ employee(id: "/api/employees/1") { name salary } }');
      expect(item.body.errors[0].extensions.status).toBe(401);
      await app.close();
    });
  },
);

describe.each(testDatabases(inject('postgresUrl'), inject('mariadbUrl')))(
  'GraphQL relations and the access rule of the item they reach on $name',
  (database) => {
    it("resolves an item its resource's item GET denies the caller to null, in to-one and to-many relations, with no error", async () => {
      // A user may read their own account; admins any. Notes are public and name their writer.
      const Account = defineResource({
        name: 'Account',
        fields: {
          email: { type: 'string' },
          plainPassword: { type: 'password', column: 'password' },
          roles: { type: 'string[]', default: ['ROLE_USER'] },
          notes: { toMany: 'Note', mappedBy: 'writer' },
        },
        operations: ['post', { kind: 'get', security: "is_granted('ROLE_ADMIN') or object == user" }],
      });
      const Note = defineResource({
        name: 'Note',
        fields: {
          text: { type: 'string' },
          writer: { toOne: 'Account', inversedBy: 'notes', nullable: true },
          labels: { toMany: 'Label', mappedBy: 'note' },
        },
        operations: ['get', 'getCollection', 'post'],
      });
      // A function rule (it may ask the database) decides through a promise: labels starting with "hidden" are denied.
      const Label = defineResource({
        name: 'Label',
        fields: { label: { type: 'string' }, note: { toOne: 'Note', inversedBy: 'labels', nullable: true } },
        operations: [
          'post',
          { kind: 'get', security: async ({ object }) => !String(object?.label).startsWith('hidden') },
          'getCollection',
        ],
      });
      const app = await buildTestApp({
        database,
        resources: [Account, Note, Label],
        security: { jwt: { secret: SECRET }, users: { resource: 'Account' } },
      });
      for (const email of ['ann@example.com', 'bob@example.com']) {
        expect(
          (await call(app, { method: 'POST', url: '/api/accounts', payload: { email, plainPassword: 'password-1' } }))
            .status,
        ).toBe(201);
      }
      for (const payload of [
        { text: 'by Ann', writer: '/api/accounts/1' },
        { text: 'by Bob', writer: '/api/accounts/2' },
      ]) {
        expect((await call(app, { method: 'POST', url: '/api/notes', payload })).status).toBe(201);
      }
      for (const label of ['shown', 'hidden one']) {
        expect(
          (await call(app, { method: 'POST', url: '/api/labels', payload: { label, note: '/api/notes/1' } })).status,
        ).toBe(201);
      }
      const login = async (email: string) =>
        (await call(app, { method: 'POST', url: '/api/auth', payload: { email, password: 'password-1' } })).body
          .token as string;
      const ann = await login('ann@example.com');
      const query = '{ notes { edges { node { text writer { email notes { edges { node { text } } } } } } } }';
      // Anonymous: no account shows. Ann: her own account only, with its to-many notes.
      for (let run = 0; run < 2; run++) {
        expect((await gql(app, query)).body).toEqual({
          data: {
            notes: { edges: [{ node: { text: 'by Ann', writer: null } }, { node: { text: 'by Bob', writer: null } }] },
          },
        });
        expect((await gql(app, query, {}, ann)).body).toEqual({
          data: {
            notes: {
              edges: [
                {
                  node: {
                    text: 'by Ann',
                    writer: { email: 'ann@example.com', notes: { edges: [{ node: { text: 'by Ann' } }] } },
                  },
                },
                { node: { text: 'by Bob', writer: null } },
              ],
            },
          },
        });
      }
      // The item query itself still answers with the denial.
      expect(
        (await gql(app, '{ account(id: "/api/accounts/2") { email } }', {}, ann)).body.errors[0].extensions.status,
      ).toBe(403);
      // A function rule, asked through a to-many relation: the denied node is null, the count stays the relation's.
      expect(
        (await gql(app, '{ note(id: "/api/notes/1") { labels { totalCount edges { node { label } } } } }')).body,
      ).toEqual({
        data: { note: { labels: { totalCount: 2, edges: [{ node: { label: 'shown' } }, { node: null }] } } },
      });
      await app.close();
    });
  },
);

describe('GraphQL options', () => {
  it('turns introspection off, and the endpoint off entirely', async () => {
    const database = testDatabases(inject('postgresUrl'), inject('mariadbUrl'))[0]!;
    const Writer = defineResource({ name: 'Writer', fields: { name: { type: 'string' } } });
    const closed = await buildTestApp({ database, resources: [Writer], graphql: { introspection: false } });
    const response = await gql(closed, '{ __schema { types { name } } }');
    expect(response.body.errors[0].message).toMatch(/introspection/i);
    expect((await gql(closed, '{ writers { totalCount } }')).body).toEqual({ data: { writers: { totalCount: 0 } } });
    await closed.close();
    const none = await buildTestApp({ database, resources: [Writer], graphql: false });
    expect(
      (await none.inject({ method: 'POST', url: '/graphql', payload: { query: '{ writers { totalCount } }' } }))
        .statusCode,
    ).toBe(404);
    await none.close();
  });
});
