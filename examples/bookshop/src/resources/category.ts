/**
 * Category — declared with DECORATORS (`@ApiResource` / `@ApiProperty`, TC39 standard decorators).
 *
 * `/api/categories` (the path is the English plural of the short name).
 */
import { ApiProperty, ApiResource } from '@resource-api/core';

// Access rules (contract): `GET` public; writes `ROLE_ADMIN` — arrive with the security issue.
// Subresource (contract): `GET /api/categories/{id}/products`, with Product's access rules and filters — arrives with
// the subresources issue (together with the inverse side `products: { toMany: Product, mappedBy: 'category' }`, left
// out until then so that a Category renders exactly `id` and `name`, as the contract lists).
@ApiResource({ description: 'A category of products.' })
export class Category {
  // Validation (contract): NotBlank — arrives with the validation issue.
  @ApiProperty({ type: 'string', iri: 'https://schema.org/name', description: 'The name of the category.' })
  name!: string;
}
