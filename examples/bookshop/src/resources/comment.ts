/**
 * Comment — declared with a PLAIN OBJECT (`defineResource`).
 *
 * `/api/comments`. `createdAt` is set by the service on create and is read-only.
 */
import { defineResource } from '@resource-api/core';

// Access rules (contract): `GET` public; `POST` `ROLE_USER`; `PUT`/`PATCH` `ROLE_USER` and the comment's user is the
// current user; `DELETE` `ROLE_ADMIN` or the comment's user — arrive with the security issue.
export const Comment = defineResource({
  name: 'Comment',
  description: 'A comment written by a user.',
  filters: [
    { type: 'search', properties: { user: 'exact' } },
    { type: 'order', properties: ['createdAt', 'id'] },
  ],
  fields: {
    // Validation (contract): group `create` NotBlank; group `update` NotNull and Length min 10 (POST runs `create`,
    // PUT and PATCH run `update`) — arrive with the validation issue.
    content: { type: 'string', description: 'The text of the comment.' },
    // Owner (contract): set to the current user on create, client value ignored on create and update — arrives with
    // the security issue. Until then an ordinary, required, writable relation.
    user: { toOne: 'User', inversedBy: 'comments', description: 'Who wrote the comment.' },
    createdAt: { type: 'datetime', default: 'now', writable: false, description: 'When the comment was written.' },
  },
});
