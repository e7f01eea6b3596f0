/**
 * A to-many relation's GraphQL connection pages as its target's collection does (API Platform's nested collections):
 * the target's page size by default, `first` up to its maximum, cursors to go on; every item when the target's
 * collection is not paginated; the global settings when the target has no collection GET. On both databases.
 */
import { describe, expect, inject, it } from 'vitest';
import { defineResource } from '@resource-api/core';
import { testDatabases } from '@resource-api/core/testing';
import { call, useApp } from '../helpers.js';

const Author = defineResource({
  name: 'Author',
  fields: {
    name: { type: 'string' },
    books: { toMany: 'Book', mappedBy: 'author' },
    notes: { toMany: 'Note', mappedBy: 'author' },
    letters: { toMany: 'Letter', mappedBy: 'author' },
  },
});
const Book = defineResource({
  name: 'Book',
  paginationItemsPerPage: 10,
  paginationMaximumItemsPerPage: 20,
  fields: { title: { type: 'string' }, author: { toOne: 'Author' } },
});
const Note = defineResource({
  name: 'Note',
  paginationEnabled: false,
  fields: { text: { type: 'string' }, author: { toOne: 'Author' } },
});
/** No collection GET: its connections page with the global settings (the plugin's `pagination`). */
const Letter = defineResource({
  name: 'Letter',
  operations: ['get'],
  fields: { text: { type: 'string' }, author: { toOne: 'Author' } },
});

describe.each(testDatabases(inject('postgresUrl'), inject('mariadbUrl')))(
  'nested GraphQL connections on $name',
  (database) => {
    const app = useApp(database, {
      resources: [Author, Book, Note, Letter],
      pagination: { itemsPerPage: 7, maximumItemsPerPage: 12 },
    });
    const gql = async (query: string) => {
      const response = await call(app(), { method: 'POST', url: '/graphql', payload: { query } });
      expect(response.body.errors, response.text).toBeUndefined();
      return response.body.data;
    };

    it('gives a page of the target by default, up to its maximum with first, and goes on from a cursor', async () => {
      const { knex } = app().resourceApi.database;
      await knex('author').insert({ name: 'Prolific' });
      await knex('book').insert(
        Array.from({ length: 25 }, (_, index) => ({
          title: `Book ${String(index + 1).padStart(2, '0')}`,
          author_id: 1,
        })),
      );
      await knex('note').insert(
        Array.from({ length: 25 }, (_, index) => ({ text: `Note ${index + 1}`, author_id: 1 })),
      );
      const titles = (connection: { edges: { node: { title: string } }[] }) =>
        connection.edges.map((edge) => edge.node.title);

      const first = await gql(
        '{ author(id: "/api/authors/1") { books { totalCount pageInfo { endCursor hasNextPage } edges { node { title } } } } }',
      );
      expect(first.author.books.totalCount).toBe(25);
      expect(titles(first.author.books)).toEqual(
        Array.from({ length: 10 }, (_, index) => `Book ${String(index + 1).padStart(2, '0')}`),
      );
      expect(first.author.books.pageInfo.hasNextPage).toBe(true);

      const next = await gql(
        `{ author(id: "/api/authors/1") { books(after: "${first.author.books.pageInfo.endCursor}") { edges { node { title } } } } }`,
      );
      expect(titles(next.author.books)[0]).toBe('Book 11');
      expect(titles(next.author.books)).toHaveLength(10);

      const clamped = await gql('{ authors { edges { node { books(first: 50) { edges { node { title } } } } } } }');
      expect(titles(clamped.authors.edges[0].node.books)).toHaveLength(20);

      // Note's collection is not paginated: every note.
      const notes = await gql('{ author(id: "/api/authors/1") { notes { totalCount edges { node { text } } } } }');
      expect(notes.author.notes.totalCount).toBe(25);
      expect(notes.author.notes.edges).toHaveLength(25);

      await knex('letter').insert(
        Array.from({ length: 25 }, (_, index) => ({ text: `Letter ${index + 1}`, author_id: 1 })),
      );
      const letters = await gql(
        '{ author(id: "/api/authors/1") { letters { totalCount edges { node { text } } } more: letters(first: 50) { edges { node { text } } } } }',
      );
      expect(letters.author.letters.totalCount).toBe(25);
      expect(letters.author.letters.edges).toHaveLength(7);
      expect(letters.author.more.edges).toHaveLength(12);
    });
  },
);
