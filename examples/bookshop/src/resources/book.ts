/**
 * Book — declared with DECORATORS (`@ApiResource` / `@ApiProperty`, TC39 standard decorators).
 *
 * `/api/books`, no access rule. `author` is a required to-one relation, written and rendered as an IRI. Every
 * successful write adds an `AuditEntry` (the `auditTrail` hooks), and is pushed with Mercure (`mercure`).
 */
import {
  ApiFilter,
  ApiProperty,
  ApiResource,
  Assert,
  Length,
  NotBlank,
  Valid,
  anyOf,
  defineFilter,
  invalidParameter,
  match,
  singleValue,
} from '@resource-api/core';
import { auditTrail } from './audit-entry.js';
import { Author } from './author.js';

/**
 * A custom filter (the `Filter` contract): `q` finds books whose title or author's name contains the text, ignoring
 * case. Not in the contract; it shows how a filter of your own is written.
 */
export const titleOrAuthor = defineFilter({
  describe: () => [
    {
      variable: 'q',
      property: null,
      required: false,
      schema: { type: 'string' },
      isCollection: false,
      description: "Text in the title or in the author's name.",
    },
  ],
  parse(query) {
    const q = singleValue(query, 'q');
    if (q !== undefined && q.trim() === '') throw invalidParameter('q', 'give some text.');
    return q;
  },
  // Conditions as data: the title, or the author's name (through the relation), contains the text.
  conditions: (q: string) => {
    const pattern = { value: q, anchor: 'contains', caseSensitive: false } as const;
    return [anyOf(match('title', pattern), match('author.name', pattern))];
  },
});

@ApiFilter(titleOrAuthor)
@ApiFilter({ type: 'order', properties: ['id', 'title'] })
@ApiFilter({ type: 'search', properties: { author: 'exact', 'author.name': 'ipartial' } })
// Every successful write adds an AuditEntry, once the write has committed (the `auditTrail` hooks).
// Every change is pushed to the Mercure hub's subscribers (`mercure`), as API Platform Admin lists expect.
@ApiResource({ description: 'A book, written by one author.', hooks: auditTrail, mercure: true })
export class Book {
  @Assert(NotBlank(), Length({ min: 3 }))
  @ApiFilter({ type: 'search', strategy: 'ipartial' })
  @ApiProperty({ type: 'string', description: 'The title of the book.' })
  title!: string;

  // An IRI, or a nested `{"name": "..."}` that creates the author with the book (cascade persist).
  // Valid: a nested new author is checked with Author's own constraints (`author.name: This value should not be
  // blank.`).
  @Assert(Valid())
  @ApiProperty({ toOne: () => Author, inversedBy: 'books', cascadePersist: true, description: 'Who wrote the book.' })
  author!: Author;

  // An optional cover: the IRI of a MediaObject (an image uploaded to /api/media_objects).
  @ApiProperty({ toOne: 'MediaObject', nullable: true, description: 'The cover image.' })
  cover!: number | null;
}
