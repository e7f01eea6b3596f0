import { ApiFilter, ApiProperty, ApiResource, Assert, Length, NotBlank, Positive } from '@resource-api/core';

/**
 * A book: `GET /api/books` (paginated, searchable by title, sortable), `POST /api/books`, and `GET`, `PUT`, `PATCH`,
 * `DELETE` on `/api/books/{id}`. Add fields, relations, filters and access rules here: see the docs' "Declaring
 * resources".
 */
@ApiResource()
@ApiFilter({ type: 'order', properties: ['title', 'id'] })
export class Book {
  @Assert(NotBlank(), Length({ max: 255 }))
  @ApiFilter({ type: 'search', strategy: 'ipartial' })
  @ApiProperty({ type: 'string' })
  title!: string;

  @Assert(Positive())
  @ApiProperty({ type: 'integer', nullable: true })
  pages!: number | null;
}
