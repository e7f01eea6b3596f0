/**
 * The example app with one change, for W4: `GET /api/books` embeds each book's author (`@id`, `@type`, `id`, `name`)
 * instead of its IRI. The bookshop's Book has no read groups, so it never embeds over REST; this declares Author and
 * Book again with the public API (plain objects, the same fields, constraints and filters, in the same order) and
 * gives Book's collection operation a read group that Author's `name` is in (API Platform's embedding rule). Every
 * other resource, and the security settings, are the bookshop's own.
 */
import type { FastifyInstance } from 'fastify';
import {
  Length,
  NotBlank,
  Valid,
  defineResource,
  type OperationDeclaration,
  type ResourceInput,
} from '@resource-api/core';
import { buildBookshop, resources as bookshopResources } from 'bookshop/dist/app.js';
import { Author as BookshopAuthor, Book as BookshopBook } from 'bookshop/dist/resources/index.js';
import { titleOrAuthor } from 'bookshop/dist/resources/book.js';

const EMBED = ['book:collection'];

/** How a variant differs from the bookshop's Book (besides being declared again). */
export interface Variant {
  /** How Book's collection pages (default `pages`). */
  readonly paging?: CollectionPaging;
  /** Book's collection embeds the author (default true; false: the bookshop's own bodies). */
  readonly embed?: boolean;
  /** The title search declares a trigram index (default false). */
  readonly substringIndex?: boolean;
  /** A write hook that does nothing on Book (default none): what a hook costs a write (W5-hook). */
  readonly hook?: WriteHookKind;
}

/**
 * A write hook that does nothing: `afterCommit` (after the built-in write) or `afterWrite` (inside its transaction).
 */
export type WriteHookKind = 'none' | 'afterCommit' | 'afterWrite';

const NOTHING = (): void => {};

const Author = defineResource({
  name: 'Author',
  description: 'A writer of books.',
  filters: [
    { type: 'order', properties: ['name', 'id'] },
    { type: 'search', properties: { name: 'ipartial' } },
  ],
  fields: {
    name: {
      type: 'string',
      iri: 'https://schema.org/name',
      groups: EMBED,
      constraints: [NotBlank()],
      description: 'The name of the author.',
    },
    books: { toMany: 'Book', mappedBy: 'author', subresource: true, description: 'The books this author wrote.' },
  },
});

/**
 * How Book's collection pages: page numbers with a count (W4), page numbers that clients may make partial, or a cursor.
 */
export type CollectionPaging = 'pages' | 'client-partial' | 'cursor';

const PAGING: Record<CollectionPaging, Partial<OperationDeclaration>> = {
  pages: {},
  'client-partial': { paginationClientPartial: true },
  cursor: { paginationViaCursor: { direction: 'asc' } },
};

const bookOf = ({ paging = 'pages', embed = true, substringIndex = false, hook = 'none' }: Variant) =>
  defineResource({
    name: 'Book',
    ...(hook === 'none' ? {} : { hooks: { [hook]: NOTHING } }),
    description: 'A book, written by one author.',
    filters: [
      titleOrAuthor,
      { type: 'order', properties: ['id', 'title'] },
      { type: 'search', properties: { author: 'exact', 'author.name': 'ipartial' } },
      { type: 'search', properties: { title: 'ipartial' }, substringIndex },
    ],
    operations: [
      {
        kind: 'getCollection',
        ...(embed ? { normalizationGroups: EMBED } : {}),
        ...PAGING[paging],
      } as OperationDeclaration,
      'post',
      'get',
      'put',
      'patch',
      'delete',
    ],
    fields: {
      title: {
        type: 'string',
        groups: EMBED,
        constraints: [NotBlank(), Length({ min: 3 })],
        description: 'The title of the book.',
      },
      author: {
        toOne: 'Author',
        inversedBy: 'books',
        cascadePersist: true,
        groups: EMBED,
        constraints: [Valid()],
        description: 'Who wrote the book.',
      },
    },
  });

/** Every resource of a variant: the bookshop's, with Author and Book declared as above. */
export const embedResources = (variant: Variant): ResourceInput[] =>
  bookshopResources.map((resource) =>
    resource === BookshopAuthor ? Author : resource === BookshopBook ? bookOf(variant) : resource,
  );

/**
 * The bookshop, as `buildBookshop` builds it, with the resources above. The variant options change only Book: how its
 * collection pages (the cursor workloads, W8, and the count of a partial page), whether it embeds the author, and
 * whether its title search has a trigram index (W2-index).
 */
export function buildEmbedApp(options: { database: string; jwtSecret: string } & Variant): Promise<FastifyInstance> {
  const { paging, embed, substringIndex, hook, ...rest } = options;
  return buildBookshop({ ...rest, resources: embedResources({ paging, embed, substringIndex, hook }) });
}
