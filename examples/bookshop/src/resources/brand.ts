/**
 * Brand — declared with a PLAIN OBJECT (`defineResource`).
 *
 * `/api/brands`.
 */
import { NotBlank, defineResource } from '@resource-api/core';

// Access rules (contract): `GET` public; writes `ROLE_ADMIN` — arrive with the security issue.
export const Brand = defineResource({
  name: 'Brand',
  description: 'A brand of products.',
  fields: {
    // In the `product:read` group, so a product embeds its brand as `{"@id", "@type", "id", "name"}`.
    name: { type: 'string', iri: 'https://schema.org/name', groups: ['product:read'], constraints: [NotBlank()], description: 'The name of the brand.' },
  },
});
