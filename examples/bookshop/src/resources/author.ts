/**
 * Author — declared with DECORATORS (`@ApiResource` / `@ApiProperty`, TC39 standard decorators).
 *
 * `/api/authors`, no access rule. `books` is the read-only inverse side of `Book.author`. A custom read,
 * `GET /api/authors/{id}/stats`, answers an `AuthorStats` (an output shape declared with `@ApiShape`).
 */
import {
  ApiFilter,
  ApiProperty,
  ApiResource,
  ApiShape,
  Assert,
  type CollectionPage,
  type Entity,
  NotBlank,
  type ProvideNext,
  type StateContext,
  type StateProvider,
} from '@resource-api/core';
import { Book } from './book.js';

/** The body of `GET /api/authors/{id}/stats`: `@type` `AuthorStats`, `@id` the request's path, no `id`. */
@ApiShape({ description: 'How many books an author wrote, and the title of the latest.' })
export class AuthorStats {
  @ApiProperty({ type: 'integer', description: 'The number of books of the author.' })
  bookCount!: number;

  @ApiProperty({
    type: 'string',
    nullable: true,
    description: "The title of the author's book with the highest id, or null when there is none.",
  })
  latestBookTitle!: string | null;
}

/**
 * The provider of `stats`: reads the author with the built-in provider (`next`; null is the 404), then counts the
 * books with the request's database connection (`context.db`).
 */
export const authorStats: StateProvider = {
  async provide(context: StateContext, next: ProvideNext): Promise<Entity | null | CollectionPage> {
    const author = (await next()) as Entity | null;
    if (!author) return null;
    const books = () => context.db('book').where('author_id', author.id!);
    const [counted] = await books().count({ n: '*' });
    const latest = await books().orderBy('id', 'desc').first('title');
    return { bookCount: Number(counted?.n ?? 0), latestBookTitle: (latest?.title as string | undefined) ?? null };
  },
};

@ApiFilter({ type: 'order', properties: ['name', 'id'] })
@ApiResource({
  description: 'A writer of books.',
  operations: [
    'getCollection',
    'post',
    'get',
    'put',
    'patch',
    'delete',
    {
      kind: 'get',
      name: 'stats',
      uriTemplate: '/authors/{id}/stats',
      output: AuthorStats,
      provider: authorStats,
      description: "The author's book count and latest title.",
    },
  ],
})
export class Author {
  @Assert(NotBlank())
  @ApiFilter({ type: 'search', strategy: 'ipartial' })
  @ApiProperty({ type: 'string', iri: 'https://schema.org/name', description: 'The name of the author.' })
  name!: string;

  /** Read-only IRIs, and the subresource `GET /api/authors/{id}/books`. */
  @ApiProperty({
    toMany: () => Book,
    mappedBy: 'author',
    subresource: true,
    description: 'The books this author wrote.',
  })
  books!: Book[];
}
