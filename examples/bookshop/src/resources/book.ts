/**
 * Book — declared with DECORATORS (`@ApiResource` / `@ApiProperty`, TC39 standard decorators).
 *
 * `/api/books`, no access rule. `author` is a required to-one relation, written and rendered as an IRI.
 */
import { ApiProperty, ApiResource } from '@resource-api/core';
import { Author } from './author.js';

// Filters (contract): `title` partial ci, `author` exact (IRI or id), `author.name` partial ci, `order[id]`,
// `order[title]` — arrive with the filters issue.
@ApiResource({ description: 'A book, written by one author.' })
export class Book {
  // Validation (contract): NotBlank, Length min 3 — arrives with the validation issue.
  @ApiProperty({ type: 'string', description: 'The title of the book.' })
  title!: string;

  // Cascade persist (contract): a nested `{"name": "..."}` creates the author with the book — arrives with the
  // cascade-persist issue. Until then only an IRI is accepted.
  @ApiProperty({ toOne: () => Author, inversedBy: 'books', description: 'Who wrote the book.' })
  author!: Author;
}
