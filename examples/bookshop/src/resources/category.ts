/**
 * Category — declared with DECORATORS (`@ApiResource` / `@ApiProperty`, TC39 standard decorators).
 *
 * `/api/categories` (the path is the English plural of the short name).
 */
import { ApiProperty, ApiResource, Assert, NotBlank } from '@resource-api/core';

// GET public; writes ROLE_ADMIN.
@ApiResource({
  description: 'A category of products.',
  operations: [
    'getCollection',
    'get',
    ...(['post', 'put', 'patch', 'delete'] as const).map((kind) => ({ kind, security: "is_granted('ROLE_ADMIN')" })),
  ],
})
export class Category {
  @Assert(NotBlank())
  // In the `product:read` group, so a product embeds its category as `{"@id", "@type", "id", "name"}`.
  @ApiProperty({
    type: 'string',
    iri: 'https://schema.org/name',
    groups: ['product:read'],
    description: 'The name of the category.',
  })
  name!: string;

  /**
   * `GET /api/categories/{id}/products`, with Product's filters and pagination. Not rendered: a category shows `id` and
   * `name`.
   */
  @ApiProperty({
    toMany: 'Product',
    mappedBy: 'category',
    subresource: true,
    readable: false,
    description: 'The products of the category.',
  })
  products!: unknown[];
}
