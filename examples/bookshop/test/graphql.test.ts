/** The contract's GraphQL API end to end: queries, paging, filters, mutations, and REST's validation, access and pagination rules. */
import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import { bearer, call, create, databases, registerAndLogin, useBookshop } from './support.js';

const gql = (app: FastifyInstance, query: string, token?: string) =>
  call(app, { method: 'POST', url: '/graphql', payload: { query }, headers: token ? bearer(token) : {} });

describe.each(databases)('bookshop GraphQL on $name', (database) => {
  const shop = useBookshop(database);

  async function seedBooks(count: number) {
    for (let i = 1; i <= count; i++)
      await create(shop().app, 'books', {
        title: `Book ${String(i).padStart(2, '0')}`,
        author: { name: i % 2 ? 'Ann Odd' : 'Bob Even' },
      });
  }

  it('reads a book by IRI and pages books as a cursor connection with totalCount, 10 per page, first clamped to 100', async () => {
    await seedBooks(12);
    const item = await gql(shop().app, '{ book(id: "/api/books/2") { id _id title author { id name } } }');
    expect(item.body).toEqual({
      data: {
        book: { id: '/api/books/2', _id: 2, title: 'Book 02', author: { id: '/api/authors/2', name: 'Bob Even' } },
      },
    });
    const page = await gql(
      shop().app,
      '{ books { totalCount pageInfo { endCursor hasNextPage } edges { node { title } } } }',
    );
    expect(page.body.data.books.totalCount).toBe(12);
    expect(page.body.data.books.edges).toHaveLength(10);
    const next = await gql(
      shop().app,
      `{ books(first: 500, after: "${page.body.data.books.pageInfo.endCursor}") { edges { node { title } } pageInfo { hasNextPage } } }`,
    );
    expect(next.body.data.books.edges.map((e: { node: { title: string } }) => e.node.title)).toEqual([
      'Book 11',
      'Book 12',
    ]);
  });

  it('filters and orders books with the declared filters', async () => {
    await seedBooks(4);
    const result = await gql(
      shop().app,
      '{ books(author_name: "odd", order: [{ title: "DESC" }]) { edges { node { title } } } }',
    );
    expect(result.body.data.books.edges.map((e: { node: { title: string } }) => e.node.title)).toEqual([
      'Book 03',
      'Book 01',
    ]);
    const byTitle = await gql(shop().app, '{ books(title: "04") { totalCount } }');
    expect(byTitle.body.data.books.totalCount).toBe(1);
  });

  it('creates, updates and deletes a book through mutations', async () => {
    const created = await gql(
      shop().app,
      'mutation { createBook(input: { title: "Dune", author: { name: "Frank Herbert" } }) { book { id title author { name } } } }',
    );
    expect(created.body).toEqual({
      data: { createBook: { book: { id: '/api/books/1', title: 'Dune', author: { name: 'Frank Herbert' } } } },
    });
    const updated = await gql(
      shop().app,
      'mutation { updateBook(input: { id: "/api/books/1", title: "Dune Messiah" }) { book { title } } }',
    );
    expect(updated.body.data.updateBook.book.title).toBe('Dune Messiah');
    const deleted = await gql(shop().app, 'mutation { deleteBook(input: { id: "/api/books/1" }) { book { id } } }');
    expect(deleted.body.data.deleteBook.book.id).toBe('/api/books/1');
  });

  it('answers a validation failure with extensions.status 400 and violations', async () => {
    const response = await gql(
      shop().app,
      'mutation { createBook(input: { title: "ab", author: { name: "A" } }) { book { id } } }',
    );
    expect(response.body.errors[0].extensions).toMatchObject({
      status: 400,
      violations: [{ propertyPath: 'title', message: 'This value is too short. It should have 3 characters or more.' }],
    });
  });

  it('applies the access rules: 401 for anonymous callers, 403 without the role, data with it', async () => {
    const anonymous = await gql(shop().app, '{ products { totalCount } }');
    expect(anonymous.body.errors[0].extensions.status).toBe(401);
    const ann = await registerAndLogin(shop().app, 'ann@example.com');
    expect((await gql(shop().app, '{ products { totalCount } }', ann.token)).body).toEqual({
      data: { products: { totalCount: 0 } },
    });
    const forbidden = await gql(
      shop().app,
      'mutation { createCategory(input: { name: "Books" }) { category { id } } }',
      ann.token,
    );
    expect(forbidden.body.errors[0].extensions.status).toBe(403);
    const allowed = await gql(
      shop().app,
      'mutation { createCategory(input: { name: "Books" }) { category { id name } } }',
      shop().adminToken,
    );
    expect(allowed.body.data.createCategory.category).toEqual({ id: '/api/categories/1', name: 'Books' });
    // roles are for admins only, in GraphQL too
    expect((await gql(shop().app, `{ user(id: "${ann.iri}") { email roles } }`, ann.token)).body.data.user).toEqual({
      email: 'ann@example.com',
      roles: null,
    });
    expect(
      (await gql(shop().app, `{ user(id: "${ann.iri}") { roles } }`, shop().adminToken)).body.data.user.roles,
    ).toEqual(['ROLE_USER']);
  });

  it('shows a user reached through a relation only to callers the user GET lets read it (owners and admins)', async () => {
    const ann = await registerAndLogin(shop().app, 'ann@example.com');
    const bob = await registerAndLogin(shop().app, 'bob@example.com');
    await create(shop().app, 'articles', { title: 'By Ann' }, ann.token);
    const query = '{ articles { edges { node { title owner { email } } } } }';
    const owner = (token?: string) => gql(shop().app, query, token).then((response) => response.body);
    expect(await owner()).toEqual({ data: { articles: { edges: [{ node: { title: 'By Ann', owner: null } }] } } });
    expect(await owner(bob.token)).toEqual({
      data: { articles: { edges: [{ node: { title: 'By Ann', owner: null } }] } },
    });
    expect(await owner(ann.token)).toEqual({
      data: { articles: { edges: [{ node: { title: 'By Ann', owner: { email: 'ann@example.com' } } }] } },
    });
    expect(await owner(shop().adminToken)).toEqual({
      data: { articles: { edges: [{ node: { title: 'By Ann', owner: { email: 'ann@example.com' } } }] } },
    });
  });

  it('serves GraphiQL to browsers', async () => {
    const page = await shop().app.inject({ method: 'GET', url: '/graphql', headers: { accept: 'text/html' } });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('GraphiQL');
  });
});
