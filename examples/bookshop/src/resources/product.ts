/**
 * Product — declared with DECORATORS (`@ApiResource` / `@ApiProperty`, TC39 standard decorators).
 *
 * `/api/products`. Its category is a decorated class (referenced by a thunk), its brand a plain-object resource
 * (referenced by its short name): both forms of relation target mix freely.
 */
import { ApiFilter, ApiProperty, ApiResource } from '@resource-api/core';
import { Category } from './category.js';

// Access rules (contract): `GET` `ROLE_USER`; `POST`, `PUT`, `PATCH`, `DELETE` `ROLE_ADMIN` — arrive with the security issue.
@ApiFilter({ type: 'search', properties: { name: 'ipartial', category: 'exact', 'category.name': 'exact', 'brand.name': 'ipartial' } })
@ApiFilter({ type: 'range', properties: ['price'] })
@ApiFilter({ type: 'order', properties: ['createdAt', 'price', 'name'] })
@ApiResource({ description: 'A product of the shop.', paginationItemsPerPage: 5, paginationMaximumItemsPerPage: 50 })
export class Product {
  // Validation (contract): NotBlank — arrives with the validation issue.
  @ApiProperty({ type: 'string', description: 'The name of the product.' })
  name!: string;

  // Validation (contract): PositiveOrZero — arrives with the validation issue.
  @ApiProperty({ type: 'float', description: 'The price.' })
  price!: number;

  /** May be given on create (defaults to now); ignored on PUT and PATCH. */
  @ApiProperty({ type: 'datetime', default: 'now', immutable: true, description: 'When the product was added.' })
  createdAt!: Date;

  // Serialization groups (contract): embedded in responses as `{"@id", "@type", "id", "name"}`, IRI on write —
  // arrive with the serialization-groups issue. Until then an IRI both ways.
  @ApiProperty({ toOne: () => Category, nullable: true, description: 'The category of the product.' })
  category!: Category | null;

  // Serialization groups (contract): embedded the same way as `category` — arrive with the serialization-groups issue.
  @ApiProperty({ toOne: 'Brand', nullable: true, description: 'The brand of the product.' })
  brand!: { id: number; name: string } | null;
}
