/**
 * Article — declared with a PLAIN OBJECT (`defineResource`).
 *
 * `/api/articles`. Owned by a user.
 */
import { NotBlank, defineResource } from '@resource-api/core';

// Access rules (contract): `GET` public; `POST` `ROLE_USER`; `PUT`/`PATCH` the owner only (`Only the owner can edit
// this article.`), checked again after the payload is applied; `DELETE` `ROLE_ADMIN` or the owner — arrive with the
// security issue.
export const Article = defineResource({
  name: 'Article',
  description: 'An article, edited by its owner.',
  fields: {
    title: { type: 'string', constraints: [NotBlank()], description: 'The title of the article.' },
    body: { type: 'text', nullable: true, description: 'The text of the article (optional).' },
    // Owner (contract): defaults to the current user on create; writable but guarded — arrives with the security
    // issue. Until then an ordinary, required, writable relation.
    owner: { toOne: 'User', description: 'Who owns the article.' },
  },
});
