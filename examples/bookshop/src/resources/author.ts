/**
 * Author — declared with DECORATORS (`@ApiResource` / `@ApiProperty`, TC39 standard decorators).
 *
 * `/api/authors`, no access rule. `books` is the read-only inverse side of `Book.author`.
 */
import { ApiFilter, ApiProperty, ApiResource, Assert, NotBlank } from '@resource-api/core';
import { Book } from './book.js';

@ApiFilter({ type: 'order', properties: ['name', 'id'] })
@ApiResource({ description: 'A writer of books.' })
export class Author {
  @Assert(NotBlank())
  @ApiFilter({ type: 'search', strategy: 'ipartial' })
  @ApiProperty({ type: 'string', iri: 'https://schema.org/name', description: 'The name of the author.' })
  name!: string;

  /** Read-only IRIs, and the subresource `GET /api/authors/{id}/books`. */
  @ApiProperty({ toMany: () => Book, mappedBy: 'author', subresource: true, description: 'The books this author wrote.' })
  books!: Book[];
}
