/**
 * GraphQL mutations store a JSON field's value as REST does: only the `id` of a nested relation's input becomes its
 * `@id`; an `id` key inside a JSON value is the client's data.
 */
import { describe, expect, inject, it } from 'vitest';
import { testDatabases } from '@resource-api/core/testing';
import { Author, Book } from '../fixtures.js';
import { call, useApp } from '../helpers.js';

describe.each(testDatabases(inject('postgresUrl'), inject('mariadbUrl')))(
  'GraphQL JSON field values on $name',
  (database) => {
    const app = useApp(database, { resources: [Author, Book] });
    const gql = (query: string, variables: Record<string, unknown>) =>
      call(app(), { method: 'POST', url: '/graphql', payload: { query, variables } });

    it('stores a JSON value holding an "id" key as sent (createBook), as REST does', async () => {
      expect((await call(app(), { method: 'POST', url: '/api/authors', payload: { name: 'A' } })).status).toBe(201);
      const extra = { id: 7, items: [{ id: 1, name: 'x' }] };
      const viaRest = await call(app(), {
        method: 'POST',
        url: '/api/books',
        payload: { title: 'Rest', author: '/api/authors/1', extra },
      });
      expect(viaRest.status).toBe(201);
      expect(viaRest.body.extra).toEqual(extra);

      const response = await gql('mutation($input: createBookInput!) { createBook(input: $input) { book { id } } }', {
        input: { title: 'Gql', author: '/api/authors/1', extra },
      });
      expect(response.body.errors).toBeUndefined();
      const stored = await call(app(), { method: 'GET', url: '/api/books/2' });
      expect(stored.body.extra).toEqual(extra);
    });

    it('stores a JSON value holding an "id" key as sent (updateBook)', async () => {
      expect((await call(app(), { method: 'POST', url: '/api/authors', payload: { name: 'A' } })).status).toBe(201);
      expect(
        (await call(app(), { method: 'POST', url: '/api/books', payload: { title: 'Rest', author: '/api/authors/1' } }))
          .status,
      ).toBe(201);
      const response = await gql('mutation($input: updateBookInput!) { updateBook(input: $input) { book { id } } }', {
        input: { id: '/api/books/1', extra: { id: 'abc' } },
      });
      expect(response.body.errors).toBeUndefined();
      expect((await call(app(), { method: 'GET', url: '/api/books/1' })).body.extra).toEqual({ id: 'abc' });
    });
  },
);
