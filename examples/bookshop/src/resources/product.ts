/**
 * Product — declared with DECORATORS (`@ApiResource` / `@ApiProperty`, TC39 standard decorators).
 *
 * `/api/products`. Its category is a decorated class (referenced by a thunk), its brand a plain-object resource
 * (referenced by its short name): both forms of relation target mix freely.
 */
import { ApiFilter, ApiProperty, ApiResource, Assert, NotBlank, PositiveOrZero } from '@resource-api/core';
import { Category } from './category.js';

const READ = ['product:read'];

@ApiFilter({
  type: 'search',
  properties: { name: 'ipartial', category: 'exact', 'category.name': 'exact', 'brand.name': 'ipartial' },
})
@ApiFilter({ type: 'range', properties: ['price'] })
@ApiFilter({ type: 'order', properties: ['createdAt', 'price', 'name'] })
@ApiResource({
  description: 'A product of the shop.',
  // Read with the `product:read` group: category and brand have their `name` in it, so they are embedded.
  normalizationGroups: ['product:read'],
  // GET needs ROLE_USER (also through /api/categories/{id}/products); writes ROLE_ADMIN.
  security: "is_granted('ROLE_USER')",
  operations: [
    'getCollection',
    'get',
    ...(['post', 'put', 'patch', 'delete'] as const).map((kind) => ({ kind, security: "is_granted('ROLE_ADMIN')" })),
  ],
  paginationItemsPerPage: 5,
  paginationMaximumItemsPerPage: 50,
})
export class Product {
  @Assert(NotBlank())
  @ApiProperty({ groups: READ, type: 'string', description: 'The name of the product.' })
  name!: string;

  @Assert(PositiveOrZero())
  @ApiProperty({ groups: READ, type: 'float', description: 'The price.' })
  price!: number;

  /** May be given on create (defaults to now); ignored on PUT and PATCH. */
  @ApiProperty({
    groups: READ,
    type: 'datetime',
    default: 'now',
    immutable: true,
    description: 'When the product was added.',
  })
  createdAt!: Date;

  // Embedded in responses as `{"@id", "@type", "id", "name"}` (the `product:read` group); an IRI on write.
  @ApiProperty({ groups: READ, toOne: () => Category, nullable: true, description: 'The category of the product.' })
  category!: Category | null;

  // Embedded the same way as `category`.
  @ApiProperty({ groups: READ, toOne: 'Brand', nullable: true, description: 'The brand of the product.' })
  brand!: { id: number; name: string } | null;
}
