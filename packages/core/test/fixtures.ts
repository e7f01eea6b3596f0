/** Small resources shared by the functional tests: a library of authors and books, declared with plain objects. */
import { defineResource } from '@resource-api/core';

export const Author = defineResource({
  name: 'Author',
  fields: {
    name: { type: 'string', iri: 'https://schema.org/name' },
    books: { toMany: 'Book', mappedBy: 'author' },
  },
});

export const Book = defineResource({
  name: 'Book',
  fields: {
    title: { type: 'string' },
    summary: { type: 'text', nullable: true },
    pages: { type: 'integer', nullable: true },
    price: { type: 'float', default: 0 },
    available: { type: 'boolean', default: true },
    publishedAt: { type: 'datetime', nullable: true },
    releaseDate: { type: 'date', nullable: true },
    extra: { type: 'json', nullable: true },
    tags: { type: 'string[]', default: [] },
    createdAt: { type: 'datetime', default: 'now', writable: false },
    isbn: { type: 'string', nullable: true, immutable: true },
    author: { toOne: 'Author', inversedBy: 'books' },
  },
});
