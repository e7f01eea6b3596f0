/**
 * Brand — declared with a PLAIN OBJECT (`defineResource`).
 *
 * `/api/brands`.
 */
import { NotBlank, defineResource } from '@resource-api/core';

export const Brand = defineResource({
  name: 'Brand',
  description: 'A brand of products.',
  // GET public; writes ROLE_ADMIN.
  operations: [
    'getCollection',
    'get',
    ...(['post', 'put', 'patch', 'delete'] as const).map((kind) => ({ kind, security: "is_granted('ROLE_ADMIN')" })),
  ],
  fields: {
    // In the `product:read` group, so a product embeds its brand as `{"@id", "@type", "id", "name"}`.
    name: {
      type: 'string',
      iri: 'https://schema.org/name',
      groups: ['product:read'],
      constraints: [NotBlank()],
      description: 'The name of the brand.',
    },
  },
});
