/**
 * Article — declared with a PLAIN OBJECT (`defineResource`).
 *
 * `/api/articles`. Owned by a user.
 */
import { NotBlank, defineResource } from '@resource-api/core';

const OWNER_ONLY = 'Only the owner can edit this article.';
// After the payload is applied, the owner must still be the caller: a payload naming someone else changes nothing.
const STILL_MINE = { securityPostDenormalize: 'object.owner == user', securityPostDenormalizeMessage: OWNER_ONLY };

export const Article = defineResource({
  name: 'Article',
  description: 'An article, edited by its owner.',
  operations: [
    'getCollection',
    'get',
    { kind: 'post', security: "is_granted('ROLE_USER')", ...STILL_MINE },
    // Admins included: an admin who is not the owner gets 403 too.
    { kind: 'put', security: 'object.owner == user', securityMessage: OWNER_ONLY, ...STILL_MINE },
    { kind: 'patch', security: 'object.owner == user', securityMessage: OWNER_ONLY, ...STILL_MINE },
    { kind: 'delete', security: "is_granted('ROLE_ADMIN') or object.owner == user" },
  ],
  fields: {
    title: { type: 'string', constraints: [NotBlank()], description: 'The title of the article.' },
    body: { type: 'text', nullable: true, description: 'The text of the article (optional).' },
    // The caller when the client gives none; writable, but the post-denormalize rule keeps it the caller's.
    owner: { toOne: 'User', currentUser: 'default', description: 'Who owns the article.' },
  },
});
