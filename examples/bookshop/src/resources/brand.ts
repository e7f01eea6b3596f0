/**
 * Brand — declared with a PLAIN OBJECT (`defineResource`).
 *
 * `/api/brands`.
 */
import { defineResource } from '@resource-api/core';

// Access rules (contract): `GET` public; writes `ROLE_ADMIN` — arrive with the security issue.
export const Brand = defineResource({
  name: 'Brand',
  description: 'A brand of products.',
  fields: {
    // Validation (contract): NotBlank — arrives with the validation issue.
    name: { type: 'string', iri: 'https://schema.org/name', description: 'The name of the brand.' },
  },
});
